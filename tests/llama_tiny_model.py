"""A tiny random-weights llama model in GGUF, for tests against a real llama.cpp server.

Llama architecture, 2 layers, width 64, an SPM vocabulary of a few hundred tokens (the 256 byte
tokens, printable ASCII pieces and the ChatML specials), and llama.cpp's own Qwen2.5 chat template
(so the server reads ``<tool_call>`` output as tool calls). Random weights never close a JSON
string on their own, so the server is started with small logit biases (see :func:`logit_biases`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

#: Specials first after the three SPM basics, so their ids are fixed.
SPECIALS = ["<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"]

N_EMBD = 64
N_FF = 128
N_LAYER = 2
N_HEAD = 4
N_CTX = 2048


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
    pieces += ["\u2581" + w for w in ("the", "a", "is", "figure", "svg", "name", "arguments")]
    tokens += pieces
    types += [TokenType.NORMAL] * len(pieces)
    scores = [0.0] * (len(tokens) - len(pieces)) + [-float(i) for i in range(len(pieces))]
    return tokens, scores, [int(t) for t in types]


def token_id(token: str) -> int:
    """The id of a token of :func:`vocabulary`."""
    return vocabulary()[0].index(token)


def logit_biases() -> dict[int, float]:
    """Biases that make random weights close strings, end replies and open tool calls."""
    return {
        token_id('"'): 6.0,
        token_id("<|im_end|>"): 3.0,
        token_id("<tool_call>"): 4.0,
        token_id("<0x0A>"): 2.0,
    }


def write_tiny_model(path: Path, template: str, seed: int = 7) -> Path:
    """Write the model to ``path`` (a .gguf file)."""
    from gguf import GGUFWriter, LlamaFileType

    tokens, scores, types = vocabulary()
    rng = np.random.default_rng(seed)

    def weights(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

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

    n_vocab = len(tokens)
    writer.add_tensor("token_embd.weight", weights(n_vocab, N_EMBD))
    for i in range(N_LAYER):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            writer.add_tensor(f"blk.{i}.{name}.weight", weights(N_EMBD, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        writer.add_tensor(f"blk.{i}.ffn_gate.weight", weights(N_FF, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_up.weight", weights(N_FF, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_down.weight", weights(N_EMBD, N_FF))
    writer.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    writer.add_tensor("output.weight", weights(n_vocab, N_EMBD))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def main(argv: list[str]) -> None:
    """``python llama_tiny_model.py OUT.gguf TEMPLATE.jinja``: write the model, print the biases."""
    import json

    write_tiny_model(Path(argv[1]), Path(argv[2]).read_text())
    print(json.dumps(logit_biases()))


if __name__ == "__main__":
    import sys

    main(sys.argv)
