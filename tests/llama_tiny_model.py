"""A tiny llama model in GGUF whose next token is fixed by the last one, for tests against a real
llama.cpp server.

Llama architecture, 2 layers, width 64, an SPM vocabulary of a few hundred tokens (the 256 byte
tokens, printable ASCII pieces, a few words and the ChatML specials) and llama.cpp's own Qwen2.5
chat template, so the server reads ``<tool_call>`` output as native tool calls.

Random weights never write a tool call, even with ``tool_choice: "required"``: llama.cpp's grammar
for it lets any text come before ``<tool_call>\\n``, and random text never ends. So the weights are
designed instead. Every layer writes nothing (``attn_output`` and ``ffn_down`` are zero), so the
last layer sees the embedding of the last token only, and ``output.weight`` holds a ranking of next
tokens for each token (:data:`NEXT`). The ranks are 20 logits apart, so sampling picks the best
token the server's grammar allows, and every run is the same. That gives:

- no grammar (plain chat, ``tool_choice`` "auto" or "none"): ``Here is the figure.`` and the end;
- ``tool_choice: "required"`` (the grammar forbids ending before a call): the same text, then
  ``<tool_call>\\n{"name": "present_svg", "arguments": {"svg": "<svg …/>", "alt": "a tiny
  figure"}}</tool_call>``, for a tool whose parameters are ``svg`` and ``alt`` (strings);
- the end forbidden (``ignore_eos``) and ``<tool_call>`` biased away: the sentence repeated on new
  lines until the context is full.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

#: Specials first after the three SPM basics, so their ids are fixed.
SPECIALS = ["<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"]

#: One token for the svg argument's value, the end of that string and the whole ``alt``: the
#: tokens of a reply are chosen by the last token alone, so two string values could not differ.
SVG_TOKEN = (
    "<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'>"
    "<rect width='8' height='8' fill='teal'/></svg>\",\"alt\":\"a tiny figure"
)
WORDS = ["Here", "\u2581is", "\u2581the", "\u2581figure", SVG_TOKEN]

#: For a last token, its preferred next tokens, best first. Every other token falls back to
#: :data:`DEFAULT_NEXT`. ``<0x0A>`` is the newline, which ends the generation prompt.
NEXT: dict[str, list[str]] = {
    "<0x0A>": ["Here", "{"],
    "Here": ["\u2581is"],
    "\u2581is": ["\u2581the"],
    "\u2581the": ["\u2581figure"],
    "\u2581figure": ["."],
    ".": ["<|im_end|>", "<tool_call>", "<0x0A>"],
    "<tool_call>": ["<0x0A>"],
    "{": ['"', "}"],
    '"': [SVG_TOKEN, '"', ":", ",", "}"],
    ":": ['"', "{"],
    ",": ['"'],
    SVG_TOKEN: ['"'],
    "}": ["}", "</tool_call>"],
    "</tool_call>": ["<|im_end|>"],
}
DEFAULT_NEXT = ['"', "<|im_end|>"]
RANK_STEP = 20.0

N_EMBD = 64
N_FF = 128
N_LAYER = 2
N_HEAD = 4
N_CTX = 4096


def vocabulary() -> tuple[list[str], list[float], list[int]]:
    """Tokens, scores and token types of the SPM vocabulary."""
    from gguf import TokenType

    tokens = ["<unk>", "<s>", "</s>", *SPECIALS]
    types = [TokenType.UNKNOWN, TokenType.CONTROL, TokenType.CONTROL]
    # ChatML markers are control tokens; the tool-call tags are text the model writes.
    types += [TokenType.CONTROL, TokenType.CONTROL, TokenType.USER_DEFINED, TokenType.USER_DEFINED]
    tokens += [f"<0x{b:02X}>" for b in range(256)]
    types += [TokenType.BYTE] * 256
    pieces = ["\u2581"] + [chr(c) for c in range(33, 127)]
    pieces += ["\u2581" + w for w in ("a", "svg", "name", "arguments")] + WORDS
    tokens += pieces
    types += [TokenType.NORMAL] * len(pieces)
    scores = [0.0] * (len(tokens) - len(pieces)) + [-float(i) for i in range(len(pieces))]
    return tokens, scores, [int(t) for t in types]


def token_id(token: str) -> int:
    """The id of a token of :func:`vocabulary`."""
    return vocabulary()[0].index(token)


def next_token_weights(tokens: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``token_embd`` and ``output`` weights that make :data:`NEXT` the model.

    Token ``t`` of :data:`NEXT` is embedded as unit vector ``e_k`` (its own ``k``), every other
    token as the last unit vector. RMS norm scales a unit vector to ``sqrt(N_EMBD)``, so
    ``output[v, k] = score / sqrt(N_EMBD)`` gives next token ``v`` the logit ``score``.
    """
    n_vocab = len(tokens)
    rows = list(NEXT.items()) + [("", DEFAULT_NEXT)]
    if len(rows) > N_EMBD:
        raise ValueError("more ranked tokens than embedding dimensions")
    embd = np.zeros((n_vocab, N_EMBD), dtype=np.float32)
    embd[:, N_EMBD - 1] = 1.0
    out = np.zeros((n_vocab, N_EMBD), dtype=np.float32)
    for k, (token, ranking) in enumerate(rows):
        dim = N_EMBD - 1 if token == "" else k
        if token:
            embd[tokens.index(token)] = 0.0
            embd[tokens.index(token), dim] = 1.0
        for rank, follower in enumerate(ranking):
            score = RANK_STEP * (len(ranking) - rank + 1)
            out[tokens.index(follower), dim] = score / np.sqrt(N_EMBD)
    return embd, out


def write_tiny_model(path: Path, template: str, seed: int = 7) -> Path:
    """Write the model to ``path`` (a .gguf file)."""
    from gguf import GGUFWriter, LlamaFileType

    tokens, scores, types = vocabulary()
    rng = np.random.default_rng(seed)

    def weights(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    def zeros(*shape: int) -> np.ndarray:
        return np.zeros(shape, dtype=np.float32)

    writer = GGUFWriter(str(path), "llama")
    writer.add_name("figure-chat-tiny")
    writer.add_context_length(N_CTX)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(token_id("<|im_end|>"))
    writer.add_unk_token_id(0)
    writer.add_add_bos_token(False)
    # Without this, tool requests fail with 400 "Failed to initialize samplers".
    writer.add_add_space_prefix(False)
    writer.add_chat_template(template)

    embd, out = next_token_weights(tokens)
    writer.add_tensor("token_embd.weight", embd)
    for i in range(N_LAYER):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        for name in ("attn_q", "attn_k", "attn_v"):
            writer.add_tensor(f"blk.{i}.{name}.weight", weights(N_EMBD, N_EMBD))
        # Zero: the layers must not change the last token's embedding (see the module doc).
        writer.add_tensor(f"blk.{i}.attn_output.weight", zeros(N_EMBD, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        writer.add_tensor(f"blk.{i}.ffn_gate.weight", weights(N_FF, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_up.weight", weights(N_FF, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_down.weight", zeros(N_EMBD, N_FF))
    writer.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    writer.add_tensor("output.weight", out)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def main(argv: list[str]) -> None:
    """``python llama_tiny_model.py OUT.gguf TEMPLATE.jinja``: write the model, print its ids.

    The ids printed (JSON) are those a test biases per request: ``tool_call`` and ``eos``.
    """
    import json

    write_tiny_model(Path(argv[1]), Path(argv[2]).read_text())
    print(json.dumps({"tool_call": token_id("<tool_call>"), "eos": token_id("<|im_end|>")}))


if __name__ == "__main__":
    import sys

    main(sys.argv)
