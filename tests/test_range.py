"""seqcourse.testing.float64_problem, the helper of every numerical-range case (issue 43): an answer compared with
the same quantity computed in float64 on the same inputs."""

from __future__ import annotations

import torch

from seqcourse.testing import float64_problem


def test_a_stable_answer_passes_and_an_overflow_is_named_where_it_happens():
    logits = torch.tensor([[0.0, 3e4, -2e4], [1.0, 2.0, 3.0]])
    want = -torch.log_softmax(logits.double(), -1)
    assert float64_problem(-torch.log_softmax(logits, -1), want) is None
    found = float64_problem(-torch.log(torch.softmax(logits, -1)), want)
    assert found is not None and found.startswith("it returned inf where float64 gives 30000") and "[0, 0]" in found


def test_half_precision_numbers_shapes_and_types():
    want = torch.tensor([40001.0, 0.5], dtype=torch.float64)
    assert float64_problem(want.half(), want, rtol=1e-3) is None
    assert float64_problem(want.float() + torch.tensor([2.0, 0.1]), want) == "it returned 0.6 where float64 gives 0.5 (at [1])"
    assert float64_problem(2.0, 2.0) is None
    assert float64_problem(torch.zeros(3), want) == "it returned shape (3,), expected (2,)"
    assert float64_problem(torch.ones(2, dtype=torch.long), want) == "it returned torch.int64, not floating-point values"
    inf = torch.tensor([float("-inf"), 1.0], dtype=torch.float64)
    assert float64_problem(inf.float(), inf) is None and float64_problem(-inf, inf) is not None
