"""forward.py, the one forward pass: each Change against a hand-written block (explicit loops, float64)."""
import torch

from ffn_core.gpt import forward
from tests.core.test_gpt_model import CONFIG, hand_attention, hand_block, hand_ffn, hand_layer_norm, trained_like


def _x(seed: int = 1) -> torch.Tensor:
    return torch.randn(2, 7, CONFIG.d_model, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def test_a_step_without_change_is_the_block_and_its_parts_add_up():
    m = trained_like()
    x = _x()
    for block in m.blocks:
        s = forward.step(block, x)
        for row in range(x.shape[0]):
            assert torch.allclose(s.output[row], hand_block(x[row], block, CONFIG.n_head), atol=1e-12, rtol=0)
        assert torch.equal(s.output, block(x))
        assert torch.equal(s.input, x)
        assert torch.allclose(s.input + s.attn + s.ffn, s.output, atol=1e-12, rtol=0)
        assert torch.equal(forward.write(block, s.hidden), s.ffn)


def test_each_change_against_a_hand_written_block():
    m = trained_like()
    block, x = m.blocks[1], _x(2)
    g = torch.Generator().manual_seed(5)
    constant = torch.randn(CONFIG.d_model, generator=g, dtype=torch.float64)
    w_2 = torch.randn(CONFIG.d_model, CONFIG.d_ff, generator=g, dtype=torch.float64) * 0.02
    delta = torch.randn(CONFIG.d_model, generator=g, dtype=torch.float64)
    for row in range(x.shape[0]):
        r = x[row]
        attn = hand_attention(hand_layer_norm(r, block.ln_1), block.attn, CONFIG.n_head)
        mid = r + attn
        h = torch.clamp(hand_layer_norm(mid, block.ln_2) @ block.ffn.w_1.weight.T + block.ffn.w_1.bias, min=0)
        cases = {
            forward.Change(attn_off=True): r + hand_ffn(hand_layer_norm(r, block.ln_2), block.ffn),
            forward.Change(ffn_off=True): mid,
            forward.Change(attn_off=True, ffn_off=True): r,
            forward.Change(ffn_constant=constant): mid + constant,
            forward.Change(w_2=w_2): mid + h @ w_2.T + block.ffn.w_2.bias,
        }
        shifted = mid + h @ block.ffn.w_2.weight.T + block.ffn.w_2.bias
        shifted[-1] += delta  # only the last position moves
        cases[forward.Change(shift_last=delta)] = shifted
        for change, want in cases.items():
            got = forward.step(block, x, change).output[row]
            assert torch.allclose(got, want, atol=1e-12, rtol=0), change


def test_steps_run_from_start_to_stop_with_changes_per_block():
    m = trained_like()
    x = _x(3)
    off = {2: forward.Change(ffn_off=True)}
    want = x
    for layer in range(1, 3):
        want = forward.step(m.blocks[layer], want, off.get(layer, forward.AS_TRAINED)).output
    assert torch.equal(forward.residual(m, x, off, start=1, stop=3), want)
    assert len(list(forward.steps(m, x, start=1, stop=3))) == 2
    idx = torch.randint(0, CONFIG.vocab_size, (2, 5), generator=torch.Generator().manual_seed(4))
    assert torch.equal(forward.logits(m, forward.residual(m, m.embed(idx))), m(idx))
