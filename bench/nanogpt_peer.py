"""The peer of ``bench.gpt_shakespeare``: nanoGPT's character-level CPU run in PyTorch, on seqlab's Shakespeare text.

    pip install torch==2.13.0        # PyTorch's CPU build; not one of seqlab's dependencies
    python -m bench.nanogpt_peer [--steps 2000] [--every 250] [--eval-iters 20] [--target 1.92]

nanoGPT's ``model.py`` (Karpathy, MIT licence) condensed: pre-norm blocks of
causal self-attention (``F.scaled_dot_product_attention``, one fused
``c_attn`` projection) and a GELU MLP, no biases, the output head tied to the
token embedding, its initialisation. Its training loop as its README runs on a
CPU (``config/train_shakespeare_char.py`` with ``--device=cpu --compile=False
--eval_iters=20 --block_size=64 --batch_size=12 --n_layer=4 --n_head=4
--n_embd=128 --max_iters=2000 --lr_decay_iters=2000 --dropout=0.0``): windows
at random offsets, AdamW (0.9, 0.99) with decay 0.1 on the matrices, lr 1e-3
with 100 warm-up steps and cosine decay to 1e-4, gradients clipped at 1, and
every 250 steps the loss estimated on 20 random batches of each split.

The text and its split are seqlab's (``shakespeare``: the first 90 % of the
characters train, the last 10 % are held out), so both benches read the same
text. The clock starts at launch, imports included, as nanoGPT's does.
"""

from __future__ import annotations

import time

LAUNCHED = time.perf_counter()

import argparse  # noqa: E402
import math  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from seqlab.data.corpora import load_shakespeare  # noqa: E402  (reads the text; does not import TensorFlow)

CONTEXT, BATCH, LAYERS, HEADS, WIDTH = 64, 12, 4, 4, 128
LR, MIN_LR, WARMUP, WEIGHT_DECAY, BETAS, CLIP = 1e-3, 1e-4, 100, 0.1, (0.9, 0.99), 1.0


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(WIDTH, 3 * WIDTH, bias=False)
        self.c_proj = nn.Linear(WIDTH, WIDTH, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = (z.view(b, t, HEADS, d // HEADS).transpose(1, 2) for z in self.c_attn(x).split(WIDTH, dim=2))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, d))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(WIDTH, bias=False), nn.LayerNorm(WIDTH, bias=False)
        self.attn = CausalSelfAttention()
        self.mlp = nn.Sequential(
            nn.Linear(WIDTH, 4 * WIDTH, bias=False), nn.GELU(), nn.Linear(4 * WIDTH, WIDTH, bias=False)
        )

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab_size, WIDTH), nn.Embedding(CONTEXT, WIDTH)
        self.h = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(WIDTH, bias=False)
        self.lm_head = nn.Linear(WIDTH, vocab_size, bias=False)
        self.lm_head.weight = self.wte.weight  # weight tying, as nanoGPT
        self.apply(self._init)
        for name, p in self.named_parameters():  # nanoGPT's scaled init of the residual projections
            if name.endswith("c_proj.weight") or name.endswith("mlp.2.weight"):
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * LAYERS))

    @staticmethod
    def _init(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, 0.0, 0.02)

    def forward(self, ids, targets):
        x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1]))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def learning_rate(step: int, steps: int) -> float:
    if step < WARMUP:
        return LR * (step + 1) / (WARMUP + 1)
    ratio = (step - WARMUP) / max(steps - WARMUP, 1)
    return MIN_LR + 0.5 * (1.0 + math.cos(math.pi * min(ratio, 1.0))) * (LR - MIN_LR)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--every", type=int, default=250)
    parser.add_argument("--eval-iters", type=int, default=20)
    parser.add_argument("--target", type=float, default=1.92)
    args = parser.parse_args()

    torch.manual_seed(1337)
    corpus = load_shakespeare()
    chars = sorted(set(corpus.text))
    index = {c: i for i, c in enumerate(chars)}
    train_text, val_text = corpus.split()
    splits = {name: torch.from_numpy(np.fromiter((index[c] for c in text), np.int64, len(text)))
              for name, text in (("train", train_text), ("val", val_text))}

    def batch(split):
        ids = splits[split]
        starts = torch.randint(len(ids) - CONTEXT, (BATCH,))
        x = torch.stack([ids[i : i + CONTEXT] for i in starts])
        return x, torch.stack([ids[i + 1 : i + 1 + CONTEXT] for i in starts])

    model = GPT(len(chars))
    matrices = [p for p in model.parameters() if p.dim() >= 2]
    vectors = [p for p in model.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW(
        [{"params": matrices, "weight_decay": WEIGHT_DECAY}, {"params": vectors, "weight_decay": 0.0}],
        lr=LR, betas=BETAS,
    )

    @torch.no_grad()
    def held_out_loss():
        model.eval()
        loss = float(np.mean([model(*batch("val")).item() for _ in range(args.eval_iters)]))
        model.train()
        return loss

    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"{sum(p.numel() for p in model.parameters()):,} parameters", flush=True)
    print(f"{'step':>6} {'s from launch':>14} {'s training':>11} {'val loss':>9}", flush=True)
    training, reached, first = 0.0, None, None
    for step in range(args.steps + 1):
        if step % args.every == 0:
            loss = held_out_loss()
            print(f"{step:6d} {time.perf_counter() - LAUNCHED:14.1f} {training:11.1f} {loss:9.3f}", flush=True)
            if reached is None and loss <= args.target:
                reached = (step, time.perf_counter() - LAUNCHED, training)
            if step == args.every:
                first = (step, training)
        if step == args.steps:
            break
        began = time.perf_counter()
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, args.steps)
        loss = model(*batch("train"))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        optimizer.step()
        training += time.perf_counter() - began
    per_step = (training - first[1]) / (args.steps - first[0])
    print(f"\n{args.steps} steps: {1000 * per_step:.1f} ms per step after the first measurement, "
          f"{BATCH * CONTEXT / per_step:,.0f} tokens per second ({BATCH * CONTEXT} per step)")
    print(f"{args.target} nats first reached: " + (
        f"step {reached[0]}, {reached[1]:.1f} s from launch ({reached[2]:.1f} s training)" if reached else "not reached"
    ))


if __name__ == "__main__":
    main()
