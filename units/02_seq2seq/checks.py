"""Hidden checks of notebook 02_seq2seq: each case is a function of ``nb``, the submitted notebook as the
grader sees it (``grader.checks.Notebook``: its names as data or handles into the sandbox, ``nb.sandbox``,
``nb.standin(name)`` for a definition of ``standins.py`` executed where the notebook runs, and the static
``nb.uses``/``nb.rule``). The master's hidden test cells call them; they run on the trusted side only."""

from __future__ import annotations

import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

# what a question's answer may change of what it is given (seqcourse/contract.py: otherwise every call leaves the caller's
# objects as it found them): translate's given code puts the model in evaluation mode, as the notebook states
MAY_CHANGE = {"q6_translate": ("translate.model",)}

# the master's answers to questions 1 to 3 and 5 with the notebook's interface (signatures, parameter names, forward): what
# later questions' checks run on where that question failed (grader/checks.py, StandIns); no check here uses them
_REF_ENCODER = """
class Encoder(nn.Module):
    def __init__(self, vocab_size, emb_size, hidden_size, num_layers=1, dropout=0.0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)
        self.dropout = nn.Dropout(dropout)
        self.rnn = nn.LSTM(emb_size, hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else 0.0)
    def forward(self, src, src_len):
        packed = nn.utils.rnn.pack_padded_sequence(self.dropout(self.embedding(src)), src_len.cpu(), batch_first=True, enforce_sorted=False)
        out, state = self.rnn(packed)
        return nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=src.size(1))[0], state
"""
_REF_DECODER = """
class Decoder(nn.Module):
    def __init__(self, vocab_size, emb_size, hidden_size, num_layers=1, dropout=0.0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)
        self.dropout = nn.Dropout(dropout)
        self.rnn = nn.LSTM(emb_size, hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else 0.0)
        self.out = nn.Linear(hidden_size, vocab_size)
    def forward(self, token, state):
        output, state = self.rnn(self.dropout(self.embedding(token.unsqueeze(1))), state)
        return self.out(output.squeeze(1)), state
"""
_REF_SEQ2SEQ = """
class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder
    def forward(self, src, src_len, tgt, teacher_forcing=1.0):
        _, state = self.encoder(src, src_len)
        token, logits = tgt[:, 0], []
        for t in range(1, tgt.size(1)):
            step_logits, state = self.decoder(token, state)
            logits.append(step_logits)
            token = tgt[:, t] if random.random() < teacher_forcing else step_logits.argmax(-1)
        return torch.stack(logits, dim=1)
"""
_REF_GREEDY_DECODE = """
@torch.no_grad()
def greedy_decode(model, src, src_len, max_len=50):
    _, state = model.encoder(src, src_len)
    token = torch.full((src.size(0),), SOS_ID, dtype=torch.long, device=src.device)
    finished = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    steps = []
    for _ in range(max_len):
        logits, state = model.decoder(token, state)
        token = logits.argmax(-1).masked_fill(finished, PAD_ID)
        steps.append(token)
        finished |= token == EOS_ID
        if finished.all():
            break
    return torch.stack(steps, dim=1)
"""

def q1_encoder_1(nb):
    _ = torch.manual_seed(1)
    _emb, _rnn = nn.Embedding(12, 5), nn.LSTM(5, 7, 2, batch_first=True)
    _enc = nb.Encoder(vocab_size=12, emb_size=5, hidden_size=7, num_layers=2).eval()
    _ = _enc.load_state_dict({"embedding.weight": _emb.weight.detach(), **{"rnn." + k: v for k, v in _rnn.state_dict().items()}}, strict=False)
    _src = torch.tensor([[2, 5, 6, 3, 0, 0], [2, 7, 8, 9, 10, 3], [2, 4, 3, 0, 0, 0]])
    _len = torch.tensor([4, 6, 3])
    _out, (_h, _c) = _enc(_src, _len)
    with torch.no_grad():
        for _b in range(3):
            _alone_out, (_ah, _ac) = _rnn(_emb(_src[_b:_b + 1, :_len[_b]]))
            assert torch.allclose(_h[:, _b], _ah[:, 0], atol=1e-5) and torch.allclose(_c[:, _b], _ac[:, 0], atol=1e-5), f"sentence {_b} (length {int(_len[_b])}): the final state differs from running the LSTM on the sentence alone. The LSTM ran over the padding: pack the embeddings with pack_padded_sequence(..., src_len.cpu(), batch_first=True, enforce_sorted=False)"
            assert torch.allclose(_out[_b, :_len[_b]], _alone_out[0], atol=1e-5), f"sentence {_b}: outputs at real positions differ from running the LSTM on the sentence alone"
        assert bool((_out[0, 4:] == 0).all() and (_out[2, 3:] == 0).all()), "outputs at padded positions must be zero (pad_packed_sequence does this)"


def q1_encoder_2(nb):
    _ = torch.manual_seed(2)
    _emb, _rnn = nn.Embedding(12, 5), nn.LSTM(5, 7, batch_first=True)
    _enc = nb.Encoder(vocab_size=12, emb_size=5, hidden_size=7, num_layers=1).eval()
    _ = _enc.load_state_dict({"embedding.weight": _emb.weight.detach(), **{"rnn." + k: v for k, v in _rnn.state_dict().items()}}, strict=False)
    _src, _len = torch.tensor([[2, 5, 3, 0, 0, 0, 0], [2, 7, 8, 3, 0, 0, 0]]), torch.tensor([3, 4])
    _out, (_h, _c) = _enc(_src, _len)
    assert tuple(_out.shape) == (2, 7, 7), f"with every sentence shorter than S = 7, outputs must still be (B, S, H) = (2, 7, 7), got {tuple(_out.shape)}: pad_packed_sequence(..., total_length=src.size(1))"
    assert tuple(_h.shape) == (1, 2, 7), "a 1-layer encoder's h must be (1, B, H)"
    with torch.no_grad():
        for _b in range(2):
            _ro, (_rh, _rc) = _rnn(_emb(_src[_b:_b + 1, :_len[_b]]))
            assert torch.allclose(_out[_b, :_len[_b]], _ro[0], atol=1e-5) and torch.allclose(_h[:, _b], _rh[:, 0], atol=1e-5) and torch.allclose(_c[:, _b], _rc[:, 0], atol=1e-5), f"sentence {_b} (length {int(_len[_b])}): outputs or final state differ from nn.LSTM run on the sentence alone: embed (then dropout), pack with pack_padded_sequence(..., src_len.cpu(), batch_first=True, enforce_sorted=False) so that the LSTM never reads the padding, run self.rnn, unpack"
        assert bool((_out[0, 3:] == 0).all() and (_out[1, 4:] == 0).all()), "outputs at padded positions, including those total_length=src.size(1) adds after the longest sentence, must be zero (pad_packed_sequence does this)"


def q1_encoder_3(nb):
    _grads_of = nb.standin("_encoder_grads")
    _ = torch.manual_seed(6)
    _emb, _rnn = nn.Embedding(12, 5), nn.LSTM(5, 7, 2, batch_first=True)
    _enc = nb.Encoder(vocab_size=12, emb_size=5, hidden_size=7, num_layers=2).eval()
    _ = _enc.load_state_dict({"embedding.weight": _emb.weight.detach(), **{"rnn." + k: v for k, v in _rnn.state_dict().items()}}, strict=False)
    _src, _len = torch.tensor([[2, 5, 6, 3, 0, 0], [2, 7, 8, 9, 10, 3], [2, 4, 3, 0, 0, 0]]), torch.tensor([4, 6, 3])
    _wo, _wh, _wc = torch.randn(3, 6, 7), torch.randn(2, 3, 7), torch.randn(2, 3, 7)
    _grads = _grads_of(_enc, _src, _len, _wo, _wh, _wc)
    assert _grads is not None, "nothing returned by forward carries a gradient: no torch.no_grad(), .detach() or .data in forward"
    _loss = 0.0
    for _b in range(3):
        _o, (_ah, _ac) = _rnn(_emb(_src[_b:_b + 1, :_len[_b]]))
        _loss = _loss + (_o[0] * _wo[_b, :_len[_b]]).sum() + (_ah[:, 0] * _wh[:, _b]).sum() + (_ac[:, 0] * _wc[:, _b]).sum()
    _ = _loss.backward()
    _want = {"embedding.weight": _emb.weight.grad, **{"rnn." + k: p.grad for k, p in _rnn.named_parameters()}}
    for _k, _g in _want.items():
        assert type(_grads) is dict and _grads.get(_k) is not None and torch.allclose(_grads[_k], _g, atol=1e-5), f"the gradient of {_k} differs from nn.LSTM's over the real tokens (or none reached it): the loss must flow back through outputs and state into the LSTM and the embedding; no .detach(), .data or torch.no_grad() in forward"


def q1_encoder_4(nb):
    _ = torch.manual_seed(11)
    _emb, _rnn = nn.Embedding(12, 5), nn.LSTM(5, 7, batch_first=True)
    _enc = nb.Encoder(vocab_size=12, emb_size=5, hidden_size=7, num_layers=1, dropout=1.0).train()
    _ = _enc.load_state_dict({"embedding.weight": _emb.weight.detach(), **{"rnn." + k: v for k, v in _rnn.state_dict().items()}}, strict=False)
    _src, _len = torch.tensor([[2, 5, 6, 3, 0, 0], [2, 7, 8, 9, 10, 3], [2, 4, 3, 0, 0, 0]]), torch.tensor([4, 6, 3])
    _out, (_h, _c) = _enc(_src, _len)
    with torch.no_grad():
        for _b in range(3):
            _zo, (_zh, _zc) = _rnn(torch.zeros(1, int(_len[_b]), 5))
            assert torch.allclose(_out[_b, :_len[_b]], _zo[0], atol=1e-5) and torch.allclose(_h[:, _b], _zh[:, 0], atol=1e-5) and torch.allclose(_c[:, _b], _zc[:, 0], atol=1e-5), f"sentence {_b}: with dropout=1.0 in training mode every embedding is dropped (zero), so outputs and state must be those of the LSTM reading zeros: apply self.dropout to the embeddings (embed, then dropout), and nowhere else (not to the outputs or the state)"


def q1_encoder_5(nb):
    _ = torch.manual_seed(12)
    _emb, _rnn = nn.Embedding(12, 5), nn.LSTM(5, 7, batch_first=True)
    _enc = nb.Encoder(vocab_size=12, emb_size=5, hidden_size=7, num_layers=1, dropout=0.5).eval()
    _ = _enc.load_state_dict({"embedding.weight": _emb.weight.detach(), **{"rnn." + k: v for k, v in _rnn.state_dict().items()}}, strict=False)
    _src, _len = torch.tensor([[2, 5, 6, 3, 0, 0], [2, 7, 8, 9, 10, 3], [2, 4, 3, 0, 0, 0]]), torch.tensor([4, 6, 3])
    _out, (_h, _c) = _enc(_src, _len)
    with torch.no_grad():
        for _b in range(3):
            _ro, (_rh, _rc) = _rnn(_emb(_src[_b:_b + 1, :_len[_b]]))
            assert torch.allclose(_out[_b, :_len[_b]], _ro[0], atol=1e-5) and torch.allclose(_h[:, _b], _rh[:, 0], atol=1e-5), f"sentence {_b}: in eval mode (model.eval()) an encoder with dropout=0.5 must drop nothing: use self.dropout (an nn.Dropout follows the mode), or F.dropout(..., training=self.training)"


def q1_encoder_6(nb):
    _on_device = nb.standin("_on_device")
    _ = torch.manual_seed(16)
    _emb, _rnn = nn.Embedding(12, 5), nn.LSTM(5, 7, 2, batch_first=True)
    _enc = nb.Encoder(vocab_size=12, emb_size=5, hidden_size=7, num_layers=2).eval()
    _ = _enc.load_state_dict({"embedding.weight": _emb.weight.detach(), **{"rnn." + k: v for k, v in _rnn.state_dict().items()}})
    _src, _len = torch.tensor([[2, 5, 6, 3], [2, 7, 3, 0], [2, 3, 0, 0]]), torch.tensor([4, 3, 2])
    _problem, _res = _on_device(_enc, (_src, _len), _enc)
    assert _problem is None, f"with the encoder, src and src_len on a GPU (the training loop moves the whole batch there), forward fails ({_problem}): pack_padded_sequence wants the lengths on the CPU (src_len.cpu()); make any other tensor on src's device"
    assert isinstance(_res, tuple) and len(_res) == 2 and isinstance(_res[1], tuple) and len(_res[1]) == 2, "forward must return (outputs, (h, c))"
    with torch.no_grad():
        for _b in range(3):
            _, (_rh, _rc) = _rnn(_emb(_src[_b:_b + 1, :_len[_b]]))
            assert torch.allclose(_res[1][0][:, _b], _rh[:, 0], atol=1e-5), f"on a GPU, sentence {_b}'s final state differs from nn.LSTM run on the sentence alone: pack with the lengths (src_len.cpu()) so that the LSTM stops at each sentence's end"


def q2_decoder_1(nb):
    _ = torch.manual_seed(3)
    _emb, _rnn, _lin = nn.Embedding(11, 4), nn.LSTM(4, 6, 2, batch_first=True), nn.Linear(6, 11)
    _dec = nb.Decoder(vocab_size=11, emb_size=4, hidden_size=6, num_layers=2).eval()
    _ = _dec.load_state_dict({"embedding.weight": _emb.weight.detach(), **{"rnn." + k: v for k, v in _rnn.state_dict().items()}, **{"out." + k: v for k, v in _lin.state_dict().items()}}, strict=False)
    _tokens = torch.randint(1, 11, (3, 5))
    _h0, _c0 = torch.randn(2, 3, 6), torch.randn(2, 3, 6)
    with torch.no_grad():
        _whole, _ = _rnn(_emb(_tokens), (_h0, _c0))
        _want = _lin(_whole)                                       # (B, T, C)
    _state = (_h0, _c0)
    for _t in range(5):
        _logits, _state = _dec(_tokens[:, _t], _state)
        assert not (torch.allclose(_logits.sum(-1), torch.ones(3), atol=1e-3) or torch.allclose(_logits.exp().sum(-1), torch.ones(3), atol=1e-3)), "the logits look like probabilities or log-probabilities (rows sum to 1, or their exp does): return raw scores, no softmax or log_softmax"
        assert torch.allclose(_logits, _want[:, _t], atol=1e-5), f"step {_t}: stepping one token at a time must equal running the LSTM over the whole sequence. Feed the given state to self.rnn and return the state it gives back (embedding -> rnn -> out)"


def q2_decoder_2(nb):
    _grads_of = nb.standin("_decoder_grads")
    _ = torch.manual_seed(7)
    _emb, _rnn, _lin = nn.Embedding(11, 4), nn.LSTM(4, 6, 2, batch_first=True), nn.Linear(6, 11)
    _dec = nb.Decoder(vocab_size=11, emb_size=4, hidden_size=6, num_layers=2).eval()
    _ = _dec.load_state_dict({"embedding.weight": _emb.weight.detach(), **{"rnn." + k: v for k, v in _rnn.state_dict().items()}, **{"out." + k: v for k, v in _lin.state_dict().items()}}, strict=False)
    _tokens, _h0, _c0 = torch.randint(1, 11, (3, 4)), torch.randn(2, 3, 6), torch.randn(2, 3, 6)
    _w, _w_h = torch.randn(3, 4, 11), torch.randn(2, 3, 6)
    _grads = _grads_of(_dec, _tokens, _h0, _c0, _w, _w_h)
    assert _grads is not None, "the logits carry no gradient: no torch.no_grad(), .detach() or .data in forward"
    _h0l, _c0l = _h0.clone().requires_grad_(), _c0.clone().requires_grad_()
    _o, (_hT, _cT) = _rnn(_emb(_tokens), (_h0l, _c0l))
    _ = ((_lin(_o) * _w).sum() + (_hT * _w_h).sum()).backward()
    _want = {"embedding.weight": _emb.weight.grad, **{"rnn." + k: p.grad for k, p in _rnn.named_parameters()}, **{"out." + k: p.grad for k, p in _lin.named_parameters()}, "h0": _h0l.grad, "c0": _c0l.grad}
    for _k, _g in _want.items():
        assert type(_grads) is dict and _grads.get(_k) is not None and torch.allclose(_grads[_k], _g, atol=1e-5), f"over 4 steps, the gradient of {_k} differs from the LSTM's over the whole sequence (or none reached it): the gradient must flow back through the state from step to step; do not .detach() the state or use .data"


def q2_decoder_3(nb):
    _ = torch.manual_seed(13)
    _emb, _rnn, _lin = nn.Embedding(11, 4), nn.LSTM(4, 6, 2, batch_first=True), nn.Linear(6, 11)
    _dec = nb.Decoder(vocab_size=11, emb_size=4, hidden_size=6, num_layers=2).eval()
    _ = _dec.load_state_dict({"embedding.weight": _emb.weight.detach(), **{"rnn." + k: v for k, v in _rnn.state_dict().items()}, **{"out." + k: v for k, v in _lin.state_dict().items()}}, strict=False)
    _h0, _c0 = torch.randn(2, 1, 6), torch.randn(2, 1, 6)
    _res = _dec(torch.tensor([7]), (_h0, _c0))
    assert isinstance(_res, tuple) and len(_res) == 2, "forward must return (logits, (h, c))"
    _logits, (_h, _c) = _res
    assert tuple(_logits.shape) == (1, 11), f"for a batch of one sentence the logits must be (1, C) = (1, 11), got {tuple(_logits.shape)}: squeeze only the time axis, squeeze(1), never squeeze() without a dim"
    assert tuple(_h.shape) == (2, 1, 6) and tuple(_c.shape) == (2, 1, 6), f"for a batch of one sentence h and c must stay (L, 1, H) = (2, 1, 6), got {tuple(_h.shape)}"
    with torch.no_grad():
        _o, (_wh, _wc) = _rnn(_emb(torch.tensor([[7]])), (_h0, _c0))
    assert torch.allclose(_logits, _lin(_o[:, 0]).detach(), atol=1e-5) and torch.allclose(_h, _wh, atol=1e-5) and torch.allclose(_c, _wc, atol=1e-5), "for a batch of one sentence the step differs from out(rnn(embedding(token), state))"


def q2_decoder_4(nb):
    _ = torch.manual_seed(14)
    _emb, _rnn, _lin = nn.Embedding(11, 5), nn.LSTM(5, 7, batch_first=True), nn.Linear(7, 11)
    _dec = nb.Decoder(vocab_size=11, emb_size=5, hidden_size=7, num_layers=1, dropout=1.0).train()
    _ = _dec.load_state_dict({"embedding.weight": _emb.weight.detach(), **{"rnn." + k: v for k, v in _rnn.state_dict().items()}, **{"out." + k: v for k, v in _lin.state_dict().items()}}, strict=False)
    _tok, _h0, _c0 = torch.tensor([2, 5, 7, 9]), torch.randn(1, 4, 7), torch.randn(1, 4, 7)
    _logits, (_h, _c) = _dec(_tok, (_h0, _c0))
    with torch.no_grad():
        _zo, (_zh, _zc) = _rnn(torch.zeros(4, 1, 5), (_h0, _c0))
        _want = _lin(_zo[:, 0])
    assert torch.allclose(_h, _zh, atol=1e-5) and torch.allclose(_c, _zc, atol=1e-5), "with dropout=1.0 in training mode the embedding is dropped (zero), so the new state must be the LSTM's after reading zeros: apply self.dropout to the embedding (embed, then dropout)"
    assert torch.allclose(_logits, _want, atol=1e-5), "with dropout=1.0 in training mode the logits must be out(rnn(zeros, state)): apply self.dropout to the embedding only, not to the LSTM output or the logits"


def q2_decoder_5(nb):
    _ = torch.manual_seed(15)
    _emb, _rnn, _lin = nn.Embedding(11, 5), nn.LSTM(5, 7, batch_first=True), nn.Linear(7, 11)
    _dec = nb.Decoder(vocab_size=11, emb_size=5, hidden_size=7, num_layers=1, dropout=0.5).eval()
    _ = _dec.load_state_dict({"embedding.weight": _emb.weight.detach(), **{"rnn." + k: v for k, v in _rnn.state_dict().items()}, **{"out." + k: v for k, v in _lin.state_dict().items()}}, strict=False)
    _tok, _h0, _c0 = torch.tensor([2, 5, 7, 9]), torch.randn(1, 4, 7), torch.randn(1, 4, 7)
    _logits, (_h, _c) = _dec(_tok, (_h0, _c0))
    with torch.no_grad():
        _o, (_wh, _wc) = _rnn(_emb(_tok)[:, None], (_h0, _c0))
        _want = _lin(_o[:, 0])
    assert torch.allclose(_logits, _want, atol=1e-5) and torch.allclose(_h, _wh, atol=1e-5), "in eval mode (model.eval()) a decoder with dropout=0.5 must drop nothing: use self.dropout (an nn.Dropout follows the mode), or F.dropout(..., training=self.training)"


def q3_seq2seq_1(nb):
    _Stubs = (nb.standin("_StubEncoder"), nb.standin("_StubDecoder"))
    _src, _len = torch.tensor([[2, 5, 3], [2, 6, 3]]), torch.tensor([3, 3])
    _tgt = torch.tensor([[2, 5, 1, 7, 3], [2, 4, 3, 0, 0]])
    _enc, _dec = _Stubs[0](), _Stubs[1]()
    _logits = nb.Seq2Seq(_enc, _dec)(_src, _len, _tgt, teacher_forcing=1.0)
    _fed, _states = list(_dec.fed), list(_dec.states)
    assert _enc.calls == 1, f"the encoder was called {_enc.calls} times, expected once, as a module: self.encoder(src, src_len)"
    assert len(_fed) > 0, "the decoder was never called: run every step through the decoder itself, self.decoder(token, state), not through its layers (self.decoder.embedding, .rnn, .out): greedy decoding, these checks and notebook 03 plug in other decoders with the same interface"
    assert len(_fed) == 4, f"the decoder ran {len(_fed)} steps for T = 5, expected T-1 = 4"
    assert torch.equal(_fed[0], _tgt[:, 0]), "the first input must be tgt[:, 0] (<sos>)"
    assert torch.equal(torch.stack(_fed, 1), _tgt[:, :-1]), "with teacher_forcing=1 the inputs must be tgt[:, :-1]: the true previous token, never the token being predicted, and never the final <eos>"
    assert [float(s.flatten()[0]) for s in _states] == [100.0, 101.0, 102.0, 103.0], "the decoder must start from the encoder's final state and carry its own state from step to step"
    assert torch.equal(_logits, 5.0 * F.one_hot((_tgt[:, :-1] + 1) % 9, 9).float()), "the returned logits must be the decoder's logits, stacked along dim 1 in step order"


def q3_seq2seq_2(nb):
    _Stubs = (nb.standin("_ZeroStateEncoder"), nb.standin("_Mod8Decoder"), nb.standin("_run_seeded"))
    _tgt = torch.tensor([[2, 5, 1, 7, 3], [2, 4, 3, 0, 0]])
    _dec = _Stubs[1]()
    _ = _Stubs[2](nb.Seq2Seq(_Stubs[0](), _dec), torch.tensor([[2, 3], [2, 3]]), torch.tensor([2, 2]), _tgt, 0.0)
    assert len(list(_dec.fed)) == 4, "the decoder must be called once per step as a module, self.decoder(token, state)"
    assert torch.equal(torch.stack(list(_dec.fed), 1), torch.tensor([[2, 3, 4, 5], [2, 3, 4, 5]])), "with teacher_forcing=0 each input must be the argmax of the previous step's logits (the model's own prediction), starting from <sos>"
    _dec, _many = _Stubs[1](), torch.full((16, 11), 8)   # 16 sentences, 10 steps: 144 inputs fed back, where a token sampled from the softmax is the argmax with p = 0.95 each
    _many[:, 0] = 2
    _ = _Stubs[2](nb.Seq2Seq(_Stubs[0](), _dec), torch.tensor([[2, 3]] * 16), torch.tensor([2] * 16), _many, 0.0)
    assert torch.equal(torch.stack(list(_dec.fed), 1), torch.tensor([[2, 3, 4, 5, 6, 7, 0, 1, 2, 3]] * 16)), "with teacher_forcing=0, 16 sentences and 10 steps, some inputs were not the argmax of the previous step's logits: the question says the next input is the step's argmax (greedy feedback), not a token sampled from its softmax"
    _dec = _Stubs[1]()
    _ = _Stubs[2](nb.Seq2Seq(_Stubs[0](), _dec), torch.tensor([[2, 3]] * 2), torch.tensor([2, 2]), torch.tensor([[2, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8]] * 2), 0.5)
    _got = [int(int(f[0]) == 8) for f in list(_dec.fed)[1:]]
    assert 1 <= sum(_got) <= 8, f"with teacher_forcing=0.5, {sum(_got)} of 9 inputs after <sos> were the true token: the ratio must decide each step (random.random() < teacher_forcing means: use the truth)"
    _rng = random.Random(0)
    _want = [int(_rng.random() < 0.5) for _ in range(9)]   # the draws after random.seed(0), one after each step
    assert _got == _want, f"with random.seed(0) and teacher_forcing=0.5 the inputs after <sos> were {_got} (1: the true token, 0: the step's argmax); the draws give {_want}. The question says: \"after step t's logits, draw random.random() once, and the next input is tgt[:, t] if the draw is below teacher_forcing, else the step's argmax\" (no draw before the first step, no other draw, not torch.rand)"
    _rng = random.Random(0)
    _stream = [int(_rng.random() < 0.5) for _ in range(13)]
    for _tf in (1.0, 0.0):   # after random.seed(0) and T-2 = 3 draws (none after the last step) or T-1 = 4, a forward at 0.5 shows the next 9
        _ = _Stubs[2](nb.Seq2Seq(_Stubs[0](), _Stubs[1]()), torch.tensor([[2, 3]] * 2), torch.tensor([2, 2]), _tgt, _tf)
        _dec = _Stubs[1]()
        _ = nb.Seq2Seq(_Stubs[0](), _dec)(torch.tensor([[2, 3]] * 2), torch.tensor([2, 2]), torch.tensor([[2] + [8] * 10] * 2), teacher_forcing=0.5)
        _got = [int(int(f[0]) == 8) for f in list(_dec.fed)[1:]]
        assert _got in (_stream[3:12], _stream[4:13]), f"after random.seed(0) and a forward with teacher_forcing={_tf} and T = 5, the next forward's inputs were {_got}, which the 4th or 5th draw onwards does not give: the question says to draw random.random() once after each step's logits (the last step may skip it), whatever the ratio, even where the draw cannot change the input"


def q3_seq2seq_3(nb):
    _Ref = (nb.standin("_RefEncoder"), nb.standin("_RefDecoder"), nb.standin("_ModelLike"))
    _grads_of = nb.standin("_seq2seq_grads")
    _ = torch.manual_seed(8)
    _eemb, _ernn = nn.Embedding(10, 4, padding_idx=0), nn.LSTM(4, 6, 2, batch_first=True)
    _demb, _drnn, _dlin = nn.Embedding(8, 4, padding_idx=0), nn.LSTM(4, 6, 2, batch_first=True), nn.Linear(6, 8)
    _e, _d = _Ref[0](10, 4, 6, 2), _Ref[1](8, 4, 6, 2)
    _ = _e.load_state_dict({"embedding.weight": _eemb.weight.detach(), **{"rnn." + k: v for k, v in _ernn.state_dict().items()}})
    _ = _d.load_state_dict({"embedding.weight": _demb.weight.detach(), **{"rnn." + k: v for k, v in _drnn.state_dict().items()}, **{"out." + k: v for k, v in _dlin.state_dict().items()}})
    _src, _len = torch.tensor([[2, 5, 7, 3], [2, 6, 3, 0]]), torch.tensor([4, 3])
    _tgt = torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0]])
    _w = torch.randn(2, 4, 8)
    _grads = _grads_of(nb.Seq2Seq(_e, _d), _e, _d, _src, _len, _tgt, _w)
    assert _grads is not None, "the logits carry no gradient: no torch.no_grad(), .detach() or .data in forward"
    _loss = 0.0
    for _b in range(2):
        _, _state = _ernn(_eemb(_src[_b:_b + 1, :_len[_b]]))
        _o, _ = _drnn(_demb(_tgt[_b:_b + 1, :-1]), _state)
        _loss = _loss + (_dlin(_o) * _w[_b:_b + 1]).sum()
    _ = _loss.backward()
    _want = {"encoder.embedding.weight": _eemb.weight.grad, **{"encoder.rnn." + k: p.grad for k, p in _ernn.named_parameters()}, "decoder.embedding.weight": _demb.weight.grad, **{"decoder.rnn." + k: p.grad for k, p in _drnn.named_parameters()}, **{"decoder.out." + k: p.grad for k, p in _dlin.named_parameters()}}
    for _k, _g in _want.items():
        assert type(_grads) is dict and _grads.get(_k) is not None and torch.allclose(_grads[_k], _g, atol=1e-5), f"the gradient of {_k} differs from the reference (or none reached it): the loss must flow back through every decoder step and the state into the encoder; do not .detach() the state or the logits, or use .data"


def q3_seq2seq_4(nb):
    _Meta = (nb.standin("_MetaEncoder"), nb.standin("_MetaDecoder"))
    _device_problem = nb.standin("_device_problem")
    _src, _len, _tgt = torch.tensor([[2, 5, 3], [2, 6, 3]]), torch.tensor([3, 3]), torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0]])
    for _tf in (1.0, 0.0):
        _dec = _Meta[1](8, 4, 6, 2)
        _model = nb.Seq2Seq(_Meta[0](10, 4, 6, 2), _dec)
        _problem = _device_problem(_model, (_src, _len, _tgt, _tf), _model)
        assert _problem is None, f"with the model and its inputs on another device than the CPU (a GPU), forward fails ({_problem}): make every tensor you create on the inputs' device (the first input is tgt[:, 0] itself; torch.full(..., device=tgt.device) otherwise)"
        assert _dec.steps == 4, f"the decoder ran {_dec.steps} steps for T = 5, expected T-1 = 4, each through the decoder itself: self.decoder(token, state)"


def q4_loss_1(nb):
    _Fixed = (nb.standin("_FixedLogits"), nb.standin("_loss_grad"))
    _ = torch.manual_seed(4)
    _L = torch.randn(3, 4, 9)
    _tgt = torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0], [2, 8, 4, 3, 0]])
    _loss, _n = nb.seq2seq_loss(_Fixed[0](_L), ((torch.ones(3, 2, dtype=torch.long), torch.tensor([2, 2, 2])), (_tgt, torch.tensor([5, 3, 4]))))
    _logp = torch.log_softmax(_L, -1)
    _want = torch.stack([-_logp[b, t, _tgt[b, t + 1]] for b in range(3) for t in range(4) if _tgt[b, t + 1] != 0]).mean()
    assert type(_n) is int and _n == 9, f"n_tokens is {_n!r}, expected 9 (a Python int): count the targets tgt[:, 1:] that are not <pad>"
    assert isinstance(_loss, torch.Tensor) and _loss.dim() == 0, "the loss must be a 0-dim tensor"
    assert abs(float(_loss.detach()) - float(_want)) < 1e-5, f"loss {float(_loss.detach()):.5f}, expected {float(_want):.5f}: compare the logits with tgt[:, 1:] (not tgt[:, :-1]) and skip <pad> targets (ignore_index=PAD_ID)"


def q4_loss_2(nb):
    _Fixed = (nb.standin("_FixedLogits"), nb.standin("_loss_grad"))
    _ = torch.manual_seed(4)
    _L = torch.randn(3, 4, 9)
    _m = _Fixed[0](_L)
    _tgt = torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0], [2, 8, 4, 3, 0]])
    _res = nb.seq2seq_loss(_m, ((torch.ones(3, 2, dtype=torch.long), torch.tensor([2, 2, 2])), (_tgt, torch.tensor([5, 3, 4]))), 0.25)
    assert _m.seen_teacher_forcing == 0.25, "seq2seq_loss(model, batch, 0.25) did not pass teacher_forcing=0.25 on to the model"
    _want = F.cross_entropy(_L.reshape(-1, 9), _tgt[:, 1:].reshape(-1), ignore_index=0)
    _loss, _n = _res
    assert type(_n) is int and _n == 9 and isinstance(_loss, torch.Tensor) and abs(float(_loss.detach()) - float(_want)) < 1e-5, f"seq2seq_loss(model, batch, 0.25) returned ({float(torch.as_tensor(_loss).detach()):.5f}, {_n!r}), expected ({float(_want):.5f}, 9): whatever teacher_forcing is, return the mean cross-entropy of the model's logits against tgt[:, 1:] (not tgt[:, :-1]) over the non-<pad> targets (ignore_index=PAD_ID), and their number as a Python int"


def q4_loss_3(nb):
    _Fixed = (nb.standin("_FixedLogits"), nb.standin("_loss_grad"))
    _ = torch.manual_seed(9)
    _L = torch.randn(3, 4, 9)
    _tgt = torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0], [2, 8, 4, 3, 0]])
    _grad = _Fixed[1](_Fixed[0](_L), ((torch.ones(3, 2, dtype=torch.long), torch.tensor([2, 2, 2])), (_tgt, torch.tensor([5, 3, 4]))))
    assert _grad is not None, "no gradient reaches the logits: the loss must be computed from the model's logits with torch operations (no .item(), float(), .detach(), .data or torch.tensor(...) around it)"
    _Ll = _L.clone().requires_grad_()
    _ = F.cross_entropy(_Ll.reshape(-1, 9), _tgt[:, 1:].reshape(-1), ignore_index=0).backward()
    assert torch.allclose(_grad, _Ll.grad, atol=1e-6), "the gradient of the loss with respect to the logits differs from that of the mean cross-entropy over the non-<pad> targets tgt[:, 1:]"


def q4_loss_4(nb):
    _Fixed = (nb.standin("_FixedLogits"), nb.standin("_loss_grad"))
    _ = torch.manual_seed(16)
    _L = torch.randn(2, 4, 7)
    _m = _Fixed[0](_L)
    _tgt = torch.tensor([[2, 0, 6, 3, 5], [2, 4, 3, 5, 5]])     # here <pad> is id 5, and 0 is a word
    with nb.sandbox.swap("PAD_ID", "PAD_ID = 5"):
        _loss, _n = nb.seq2seq_loss(_m, ((torch.ones(2, 2, dtype=torch.long), torch.tensor([2, 2])), (_tgt, torch.tensor([4, 3]))))
    _want = F.cross_entropy(_L.reshape(-1, 7), _tgt[:, 1:].reshape(-1), ignore_index=5)
    assert _n == 5 and abs(float(torch.as_tensor(_loss).detach()) - float(_want)) < 1e-5, f"with <pad> at id 5 (PAD_ID = 5) the result is ({float(torch.as_tensor(_loss).detach()):.4f}, {_n}), expected ({float(_want):.4f}, 5): name the padding id PAD_ID (ignore_index=PAD_ID, targets != PAD_ID), never a literal 0"


def q4_loss_5(nb):
    _Fixed = (nb.standin("_FixedLogits"), nb.standin("_loss_grad"))
    _ = torch.manual_seed(17)
    _L = torch.randn(3, 4, 9) * 300
    _tgt = torch.tensor([[2, 5, 6, 7, 3], [2, 4, 3, 0, 0], [2, 8, 4, 3, 0]])
    _loss, _n = nb.seq2seq_loss(_Fixed[0](_L), ((torch.ones(3, 2, dtype=torch.long), torch.tensor([2, 2, 2])), (_tgt, torch.tensor([5, 3, 4]))))
    _want = float(F.cross_entropy(_L.double().reshape(-1, 9), _tgt[:, 1:].reshape(-1), ignore_index=0))
    _got = float(torch.as_tensor(_loss).detach())
    assert math.isfinite(_got) and abs(_got - _want) <= 1e-4 * abs(_want), f"with logits of magnitude ~300 the loss is {_got:.6g}, expected {_want:.6g}: compute log-probabilities stably (F.cross_entropy or log_softmax, never log(softmax(...)) or exp by hand)"


def q5_greedy_1(nb):
    _Stub = nb.standin("_CountStub")
    _stub = _Stub()
    _out = nb.greedy_decode(_stub, torch.zeros(3, 4, dtype=torch.long), torch.tensor([2, 0, 4]), max_len=10)
    _want = torch.tensor([[4, 5, 3, 0, 0], [3, 0, 0, 0, 0], [4, 5, 6, 7, 3]])
    assert isinstance(_out, torch.Tensor) and _out.dim() == 2, "return a (B, U) tensor of token ids"
    assert _out.shape[1] <= 5, f"ran {_out.shape[1]} steps; the longest sentence ends at step 5: stop as soon as every sentence has produced <eos> (decoding that never stops)"
    assert _out.shape[1] == 5, f"ran {_out.shape[1]} steps; the longest sentence ends at step 5: keep going until ALL sentences are finished, not the first"
    _fed = list(_stub.decoder.fed)
    assert int(_fed[0][0]) == 2 and int(_fed[1][0]) == 4, "the first input must be <sos>, then each step's own prediction"
    assert torch.equal(_out, _want), f"got {_out.tolist()}, expected {_want.tolist()}: start from <sos>, feed back each argmax, keep <eos>, and write <pad> after a sentence's <eos>"
    _out = nb.greedy_decode(_Stub(), torch.zeros(2, 4, dtype=torch.long), torch.tensor([6, 1]), max_len=3)
    assert torch.equal(_out, torch.tensor([[4, 5, 6], [4, 3, 0]])), f"got {_out.tolist()}: stop after max_len steps even if a sentence has not finished"


def q5_greedy_2(nb):
    _Ref = (nb.standin("_RefEncoder"), nb.standin("_RefDecoder"), nb.standin("_ModelLike"))
    _ = torch.manual_seed(5)
    _eemb, _ernn = nn.Embedding(12, 8), nn.LSTM(8, 16, 2, batch_first=True)
    _demb, _drnn, _dlin = nn.Embedding(10, 8), nn.LSTM(8, 16, 2, batch_first=True), nn.Linear(16, 10)
    with torch.no_grad():   # larger weights and a push towards <eos>: the sentences end after 4, 7, 5 and 9 steps
        for _m in (_eemb, _ernn, _demb, _drnn, _dlin):
            for _p in _m.parameters():
                _ = _p.mul_(5.0)
        _ = _dlin.bias[3].add_(1.0)
    _e, _d = _Ref[0](12, 8, 16, 2), _Ref[1](10, 8, 16, 2)
    _ = _e.load_state_dict({"embedding.weight": _eemb.weight.detach(), **{"rnn." + k: v for k, v in _ernn.state_dict().items()}})
    _ = _d.load_state_dict({"embedding.weight": _demb.weight.detach(), **{"rnn." + k: v for k, v in _drnn.state_dict().items()}, **{"out." + k: v for k, v in _dlin.state_dict().items()}})
    _src = torch.tensor([[2, 5, 6, 3, 0], [2, 7, 8, 9, 3], [2, 4, 3, 0, 0], [2, 11, 10, 5, 3]])
    _len, _max = torch.tensor([4, 5, 3, 5]), 12
    _want = []
    with torch.no_grad():
        for _b in range(_src.size(0)):
            _, _st = _ernn(_eemb(_src[_b:_b + 1, :_len[_b]]))
            _tok, _row = torch.tensor([2]), []
            for _t in range(_max):
                _o, _st = _drnn(_demb(_tok)[:, None], _st)
                _tok = _dlin(_o[:, 0]).argmax(-1)
                _row.append(int(_tok))
                if _row[-1] == 3:
                    break
            _want.append(_row)
    _steps = max(len(_r) for _r in _want)
    _want = torch.tensor([_r + [0] * (_steps - len(_r)) for _r in _want])
    _batched = nb.greedy_decode(_Ref[2](_e, _d), _src, _len, max_len=_max)
    assert isinstance(_batched, torch.Tensor) and _batched.dim() == 2 and _batched.size(0) == 4, "return a (B, U) tensor of token ids"
    assert torch.equal(_batched[:, 0], _want[:, 0]), f"the first step gave {_batched[:, 0].tolist()}, the model's argmax after <sos> is {_want[:, 0].tolist()}: feed <sos> with the encoder's final state"
    for _b in range(4):
        assert torch.equal(_batched[_b], _want[_b]) if _batched.shape == _want.shape else False, f"sentence {_b}: decoding it inside the batch gave {_batched[_b].tolist()}, alone {_want[_b].tolist()}. Each sentence must be decoded independently of the others (argmax over the vocabulary, dim -1)"


def q5_greedy_3(nb):
    _Stub = nb.standin("_CountStub")
    _out = nb.greedy_decode(_Stub(), torch.zeros(1, 5, dtype=torch.long), torch.tensor([3]), max_len=8)
    assert isinstance(_out, torch.Tensor) and tuple(_out.shape) == (1, 4), f"for one sentence that ends after 4 steps the result must be (1, 4), got {tuple(getattr(_out, 'shape', ()))}"
    assert _out.tolist() == [[4, 5, 6, 3]], f"for one sentence got {_out.tolist()}, expected [[4, 5, 6, 3]]"


def q5_greedy_4(nb):
    _Stub = nb.standin("_CountStub")
    _run = nb.standin("_run_greedy")
    _stub = _Stub().train()
    _src, _len = torch.zeros(3, 4, dtype=torch.long), torch.tensor([2, 0, 4])
    _out, _found = _run(_stub, _src, _len, 10)
    assert isinstance(_out, torch.Tensor) and _out.tolist() == [[4, 5, 3, 0, 0], [3, 0, 0, 0, 0], [4, 5, 6, 7, 3]], f"greedy decoding of a model in training mode gave {_out.tolist() if isinstance(_out, torch.Tensor) else _out}, expected [[4, 5, 3, 0, 0], [3, 0, 0, 0, 0], [4, 5, 6, 7, 3]]"
    assert not _found, f"greedy_decode changed what it should leave alone: {'; '.join(_found)}. The caller chooses the mode (translate calls model.eval() itself; decoding a sample during training must not switch dropout off), and the inputs must not be changed in place"


def q5_greedy_5(nb):
    _Stub = nb.standin("_CountStub")
    _greedy_on_device = nb.standin("_greedy_on_device")
    _problem, _out = _greedy_on_device(_Stub(), torch.zeros(3, 4, dtype=torch.long), torch.tensor([2, 0, 4]), 10)
    assert _problem is None, f"with the model and the batch on a GPU (translate moves them there), greedy_decode fails ({_problem}): make the <sos> tokens and every other new tensor on src.device (torch.full(..., device=src.device))"
    assert isinstance(_out, torch.Tensor) and _out.tolist() == [[4, 5, 3, 0, 0], [3, 0, 0, 0, 0], [4, 5, 6, 7, 3]], f"on a GPU greedy decoding gave {_out.tolist() if isinstance(_out, torch.Tensor) else _out}, expected [[4, 5, 3, 0, 0], [3, 0, 0, 0, 0], [4, 5, 6, 7, 3]]"


def q6_translate_1(nb):
    _t0 = nb.time.perf_counter()
    _train = nb.standin("_train_numbers")
    # the numbers of seqcourse.number_words_task(n_train=8000, n_val=10, n_test=300, seed=1), drawn as it draws them,
    # without the datasets library its splits are made with (whose import holds about 70 MB, in the grader or the
    # sandbox: docs/instructors.md, Memory and container sizes); trained on the first 8000, tested on the last 300
    _numbers = random.Random(1).sample(range(1_000_000), 8310)
    _model, _sv, _tv = _train(_numbers[:8000])
    _test = _numbers[8010:]
    _hyp = nb.translate(_model, [nb.seqcourse.number_to_words(n) for n in _test], _sv, _tv)
    assert type(_hyp) is list and len(_hyp) == 300 and all(type(h) is list and all(type(t) is str for t in h) for h in _hyp), "translate must return one token list per sentence"
    _exact = nb.seqcourse.exact_match(_hyp, [" ".join(str(n)) for n in _test])
    assert _exact >= 0.9, f"after training your model on number words for {nb.time.perf_counter() - _t0:.0f} s only {_exact:.0%} of test numbers are translated exactly (a correct solution: 99-100 %). If questions 1-5 pass, check that translate keeps the input order and encodes sentences with <sos>/<eos> as in training"


def q6_translate_2(nb):
    _Stub = nb.standin("_LengthStub")
    _sv, _tv = nb.Vocab.build([["one", "two"]]), nb.Vocab.build([["1", "2"]])
    _res = nb.translate(_Stub(), ["one two one two one", "two", "two two two two two two two two two two"], _sv, _tv, max_len=4)
    assert _res == [["1"] * 4, ["1"] * 3, ["1"] * 4], f"with max_len=4 a stand-in that writes one '1' per source id gave {_res}, expected {[['1'] * 4, ['1'] * 3, ['1'] * 4]}: pass max_len on to greedy_decode"


def q6_translate_3(nb):
    _Stub = nb.standin("_LengthStub")
    _sv, _tv = nb.Vocab.build([["one", "two"]]), nb.Vocab.build([["1", "2"]])
    _stub = _Stub()
    _sentences = ["one", "two two", "one two one", "two", "one one one one"]
    _res = nb.translate(_stub, _sentences, _sv, _tv, max_len=9, batch_size=2)
    _sizes = list(_stub.encoder.batches)
    assert _res == [["1"] * (len(s.split()) + 2) for s in _sentences], f"with batch_size=2 a stand-in that writes one '1' per source id gave {_res}: keep the input order"
    assert sum(_sizes) == 5 and max(_sizes) <= 2, f"with batch_size=2 the model encoded batches of {_sizes} sentences: decode at most batch_size sentences at a time"


def q6_translate_4(nb):
    _translate_on_device = nb.standin("_translate_on_device")
    _sv, _tv = nb.Vocab.build([["one", "two"]]), nb.Vocab.build([["1", "2"]])
    _problem, _res = _translate_on_device(["one two", "two", "one one two"], _sv, _tv)
    assert _problem is None, f"with the model on a GPU, translate fails ({_problem}): move each batch of source ids to the model's device (ids.to(device)) before greedy_decode"
    assert _res == [["1"] * 4, ["1"] * 3, ["1"] * 5], f"with the model on a GPU, a stand-in that writes one '1' per source id gave {_res}, expected {[['1'] * 4, ['1'] * 3, ['1'] * 5]}"


def q4_loss_6(nb):
    _Fixed = (nb.standin("_FixedLogits"), nb.standin("_loss_grad"))
    _ = torch.manual_seed(9)
    _L = torch.randn(2, 3, 7) * 300                                              # confident logits, as after long training
    _tgt = torch.tensor([[2, 5, 6, 3], [2, 4, 3, 0]])
    _loss, _n = nb.seq2seq_loss(_Fixed[0](_L), ((torch.ones(2, 2, dtype=torch.long), torch.tensor([2, 2])), (_tgt, torch.tensor([4, 3]))))
    _want = F.cross_entropy(_L.reshape(-1, 7), _tgt[:, 1:].reshape(-1), ignore_index=0)
    assert isinstance(_loss, torch.Tensor) and bool(torch.isfinite(_loss)) and abs(float(_loss.detach()) - float(_want)) < 1e-3 * max(1.0, float(_want)), f"with logits in the hundreds the loss is {float(torch.as_tensor(_loss).detach())}, expected {float(_want):.2f}: log(softmax(...)) underflows to log(0) = -inf; use F.cross_entropy (or log_softmax), which stays finite"


def q6_translate_5(nb):
    _Stub, _dash_split = nb.standin("_LengthStub"), nb.standin("_dash_split")
    _sv, _tv = nb.Vocab.build([["one", "two"]]), nb.Vocab.build([["1", "2"]])
    _res = nb.translate(_Stub(), ["one-two-one", "two", "two-two"], _sv, _tv, tokenize=_dash_split, max_len=9)
    assert _res == [["1"] * 5, ["1"] * 3, ["1"] * 4], f"with tokenize splitting at dashes a stand-in that writes one '1' per source id gave {_res}, expected {[['1'] * 5, ['1'] * 3, ['1'] * 4]}: split each sentence with the tokenize argument (not str.split)"


def q6_translate_6(nb):
    _Stub = nb.standin("_LengthStub")
    _sv, _tv = nb.Vocab.build([["one", "two"]]), nb.Vocab.build([["1", "2"]])
    try:
        _none = nb.translate(_Stub(), [], _sv, _tv)
    except Exception as _e:
        raise AssertionError(f"translate(model, [], ...) raised {type(_e).__name__}: {_e}. With no sentences there is no batch to pad: "
                             "return [] (pad each batch of at most batch_size sentences, not all sentences at once)") from None
    assert _none == [], f"with no sentences translate must return [], got {_none!r}"
    _res = nb.translate(_Stub(), ["", "one"], _sv, _tv, batch_size=1)
    assert _res == [["1"] * 2, ["1"] * 3], f"an empty sentence (only <sos> <eos>) and another, one per batch (batch_size=1): a stand-in that writes one '1' per source id gave {_res}, expected [['1', '1'], ['1', '1', '1']]: encode every sentence as in training, even an empty one"
