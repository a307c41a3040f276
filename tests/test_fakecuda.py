"""The fake CUDA device of the checks (seqcourse.fakecuda) against what CUDA does.

Each case is code a student might write, with x (2, 3, 4) on the GPU, n = tensor([3, 2]) lengths on the CPU
and the modules of ``_modules()`` moved to the GPU; the verdict is what CUDA does with it: "error" (it
raises), or the device of the result ("cuda", or "cpu" where a copy into a CPU tensor is accepted and leaves
the result there). The fake device must give the same verdicts; on a machine with a GPU the same cases run on
the real device and must give them too (test_verdicts_hold_on_a_real_gpu).
"""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from seqcourse.fakecuda import cuda_generator, on_fake_cuda

CASES = {
    # made on the input's device, or moved there: accepted
    "factory with device=": ("torch.zeros(2, 3, 4, device=x.device) + x", "cuda"),
    "arange with device=": ("x + torch.arange(4, device=x.device)", "cuda"),
    "new_zeros / new_tensor": ("x + x.new_zeros(4) + x.new_tensor([1.0, 2.0, 3.0, 4.0])", "cuda"),
    "zeros_like / full_like": ("torch.zeros_like(x) + torch.full_like(x, 2.0)", "cuda"),
    "moved with .to(device)": ("x + torch.ones(4).to(x.device)", "cuda"),
    "moved with .to(tensor)": ("x + torch.ones(4).to(x)", "cuda"),
    "0-dim CPU scalar": ("x * torch.tensor(2.0)", "cuda"),
    "CPU index tensor": ("x[:, torch.tensor([0, 2])]", "cuda"),
    "CPU boolean mask": ("x[torch.tensor([True, False])]", "cuda"),
    "index_fill with a GPU index": ("x.clone().index_fill(0, torch.tensor([0], device=x.device), 1.0)", "cuda"),
    "item and tolist": ("x.sum().item() + x.tolist()[0][0][0] + x", "cuda"),
    "back to the CPU": ("x.cpu() + torch.ones(4)", "cpu"),
    "copy into a CPU buffer": ("torch.zeros(2, 3, 4).copy_(x)", "cpu"),
    "write into a CPU buffer": ("_write(torch.zeros(2, 3, 4), x)", "cpu"),
    "write CPU values into a GPU slice": ("_write(x.clone(), torch.ones(2, 3, 4))", "cuda"),
    "triangular mask on the device": ("x.masked_fill(torch.ones(4, 4, dtype=torch.bool, device=x.device).triu(1)[:3], 0.0)",
                                      "cuda"),
    "embedding with GPU ids": ("emb(x.argmax(-1))", "cuda"),
    "LSTM, GRU, multi-head attention": ("lstm(x)[0] + gru(x)[0][..., :4] + mha(x, x, x)[0]", "cuda"),
    "packing with CPU lengths": ("pad_packed_sequence(gru(pack_padded_sequence(x, n, batch_first=True))[0], "
                                 "batch_first=True)[0]", "cuda"),
    "packing with lengths moved back": ("pack_padded_sequence(x, n.to(x.device).cpu(), batch_first=True).data", "cuda"),
    "sampling, sorting, top-k": ("torch.multinomial(x[0].softmax(-1), 2).float() + x[0, :, :2].sort(-1).values "
                                 "+ x[0].topk(2).values", "cuda"),
    "cross-entropy with GPU targets": ("F.cross_entropy(x[0], x[0].argmax(-1))", "cuda"),
    "attention with a GPU mask": ("F.scaled_dot_product_attention(x, x, x, attn_mask=torch.ones(3, 3, dtype=torch.bool, "
                                  "device=x.device).tril())", "cuda"),
    "backward": ("_backward(lin, x)", "cuda"),
    "one_hot of GPU ids": ("F.one_hot(x.argmax(-1), 4).float() + x", "cuda"),
    # a CPU tensor (not a 0-dim scalar) beside GPU tensors: rejected
    "factory without device=": ("x + torch.arange(4)", "error"),
    "CPU mask in masked_fill": ("x.masked_fill(torch.ones(3, 4, dtype=torch.bool).triu(1), 0.0)", "error"),
    "cat with a CPU tensor": ("torch.cat([x, torch.zeros(2, 3, 4)], 1)", "error"),
    "matmul with a CPU tensor": ("x @ torch.ones(4, 4)", "error"),
    "where with a CPU tensor": ("torch.where(x > 0, x, torch.zeros(4))", "error"),
    "gather with CPU indices": ("x.gather(-1, torch.zeros(2, 3, 1, dtype=torch.long))", "error"),
    "index_select with CPU indices": ("x.index_select(1, torch.tensor([0, 1]))", "error"),
    "cross-entropy with CPU targets": ("F.cross_entropy(x[0], torch.tensor([0, 1, 2]))", "error"),
    "embedding with CPU ids": ("emb(torch.tensor([[1, 2]]))", "error"),
    "attention with a CPU mask": ("F.scaled_dot_product_attention(x, x, x, attn_mask=torch.ones(3, 3, "
                                  "dtype=torch.bool).tril())", "error"),
    "packing with lengths on the GPU": ("pack_padded_sequence(x, n.to(x.device), batch_first=True).data", "error"),
    "numpy of a GPU tensor": ("torch.from_numpy(x.numpy())", "error"),
    # g: a generator on the GPU (on the fake one, a CPU generator that draws only for tensors made there)
    "a draw on the device with its generator": ("x + torch.rand(2, 3, 4, generator=g, device=x.device)", "cuda"),
    "sampling on the device with its generator": ("torch.multinomial(x[0].softmax(-1), 2, generator=g)", "cuda"),
    "a draw on the CPU with the GPU's generator": ("x + torch.rand(2, 3, 4, generator=g).to(x)", "error"),
}


def _write(out, values):  # out[:, t] = values[:, t], step by step, as a decoder loop fills its outputs
    for t in range(values.size(1)):
        out[:, t] = values[:, t]
    return out


def _backward(lin, x):
    lin.zero_grad()
    lin(x).sum().backward()
    return lin.weight.grad


def _verdict(code: str, device: str) -> str:
    torch.manual_seed(0)
    env = {"torch": torch, "F": F, "pack_padded_sequence": pack_padded_sequence,
           "pad_packed_sequence": pad_packed_sequence, "_write": _write, "_backward": _backward,
           "emb": nn.Embedding(5, 4), "lstm": nn.LSTM(4, 4, batch_first=True), "gru": nn.GRU(4, 5, batch_first=True),
           "mha": nn.MultiheadAttention(4, 2, batch_first=True), "lin": nn.Linear(4, 3)}
    for name in ("emb", "lstm", "gru", "mha", "lin"):
        env[name].to(device)
    env["x"], env["n"] = torch.randn(2, 3, 4).to(device), torch.tensor([3, 2])
    env["g"] = torch.Generator(device).manual_seed(0) if torch.cuda.is_available() else cuda_generator()
    try:
        out = eval(code, env)
    except (RuntimeError, TypeError):
        return "error"
    return out.device.type


@pytest.mark.parametrize("name", CASES)
def test_fake_device_gives_cudas_verdict(name):
    code, verdict = CASES[name]
    with on_fake_cuda():
        assert _verdict(code, "cuda") == verdict, code


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU on this machine")
@pytest.mark.parametrize("name", CASES)
def test_verdicts_hold_on_a_real_gpu(name):
    code, verdict = CASES[name]
    assert _verdict(code, "cuda") == verdict, code


def test_values_and_gradients_on_the_fake_device_are_the_cpus():
    torch.manual_seed(0)
    lin, x = nn.Linear(4, 3), torch.randn(2, 4)
    want = lin(x)
    want.sum().backward()
    grad = lin.weight.grad.clone()
    with on_fake_cuda():
        lin.zero_grad()
        lin.to("cuda")
        got = lin(x.to("cuda"))
        got.sum().backward()
        assert got.device.type == "cuda" and lin.weight.grad.device.type == "cuda"
        got, got_grad = got.detach().cpu(), lin.weight.grad.cpu()
    assert type(got) is torch.Tensor and torch.equal(got, want.detach()) and torch.equal(got_grad, grad)


@pytest.mark.skipif(torch.cuda.is_available(), reason="a real GPU makes the generator itself")
def test_a_gpu_generator_gets_the_same_verdict_from_every_build():
    """torch.Generator("cuda") is a real CUDA object the fake device cannot make: the CPU-only wheel and a CUDA
    build without a usable GPU (what a plain `pip install torch` takes on Linux) fail with different messages,
    and both must mean "no device verdict, the values from the CPU", or a check's verdict would depend on the
    build (issue: a copied generator revealed under one torch and not the other)."""
    from seqcourse.testing import on_device

    def draw(x):  # draws from a new generator made on x's device, seeded like the caller's would be
        return x + torch.rand(x.shape, generator=torch.Generator(x.device).manual_seed(3), device=x.device)

    problem, got = on_device(draw, (torch.zeros(2, 3),))
    assert problem is None and torch.equal(got, torch.rand(2, 3, generator=torch.Generator().manual_seed(3)))
