"""Probe recipe: tiny-config transformers models (no weights downloaded). One model per
``PROBE_MODEL`` environment variable (bert, gpt2, t5, llama, mixtral, vit), so each is probed
against its own ``transformers/models/<name>`` directory."""

import os

import torch
import transformers as T


def _ids(vocab: int = 99, shape=(2, 7)):
    return torch.randint(0, vocab, shape)


def _build(name: str):
    small = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=37)
    if name == "bert":
        return T.BertModel(T.BertConfig(vocab_size=99, max_position_embeddings=64, **small)), (_ids(),)
    if name == "gpt2":
        return T.GPT2LMHeadModel(T.GPT2Config(vocab_size=99, n_positions=64, n_embd=32, n_layer=2, n_head=2, use_cache=False)), (_ids(),)
    if name == "t5":
        cfg = T.T5Config(vocab_size=99, d_model=32, d_kv=16, d_ff=37, num_layers=2, num_heads=2, decoder_start_token_id=0, use_cache=False)
        return T.T5ForConditionalGeneration(cfg), {"input_ids": _ids(), "decoder_input_ids": _ids(shape=(2, 5))}
    if name == "llama":
        cfg = T.LlamaConfig(vocab_size=99, num_key_value_heads=1, max_position_embeddings=64, use_cache=False, **small)
        return T.LlamaForCausalLM(cfg), (_ids(),)
    if name == "mixtral":
        # the grouped expert matmul needs 16-byte-aligned strides: an intermediate size of 48
        small = {**small, "intermediate_size": 48}
        cfg = T.MixtralConfig(vocab_size=99, num_key_value_heads=1, max_position_embeddings=64, num_local_experts=4,
                              num_experts_per_tok=2, use_cache=False, **small)
        return T.MixtralForCausalLM(cfg), (_ids(),)
    if name == "vit":
        cfg = T.ViTConfig(image_size=32, patch_size=8, num_channels=3, **small)
        return T.ViTModel(cfg), (torch.randn(2, 3, 32, 32),)
    raise ValueError(f"unknown PROBE_MODEL {name!r}")


def examples():
    torch.manual_seed(0)
    name = os.environ.get("PROBE_MODEL", "bert")
    model, args = _build(name)
    yield name, model, args
