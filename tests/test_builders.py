"""migrate_lens.analysis.builders: library config builders as the torch layers they build."""

from migrate_lens.analysis.builders import UNKNOWN, built_layers, registry_build


def test_norm_layer_by_abbreviation() -> None:
    assert built_layers("norm", ({"type": "BN", "requires_grad": True}, 64), {}) == [
        ("torch.nn.BatchNorm2d", (64,), {})]
    assert built_layers("norm", ({"type": "GN", "num_groups": 8}, 64), {}) == [
        ("torch.nn.GroupNorm", (), {"num_groups": 8, "num_channels": 64})]
    assert built_layers("norm", ({"type": "LN", "eps": 1e-6},), {"num_features": 32}) == [
        ("torch.nn.LayerNorm", (32,), {"eps": 1e-6})]


def test_conv_module_makes_conv_norm_and_default_relu() -> None:
    got = built_layers("conv_module", (16, 32, 3), {"stride": 2, "padding": 1, "norm_cfg": {"type": "BN"}})
    assert got == [("torch.nn.Conv2d", (16, 32, 3, 2, 1, 1, 1), {}),
                   ("torch.nn.BatchNorm2d", (32,), {}),
                   ("torch.nn.ReLU", (), {})]
    assert built_layers("conv_module", (16, 32, 1), {"act_cfg": None}) == [
        ("torch.nn.Conv2d", (16, 32, 1, 1, 0, 1, 1), {})]
    # all positional, as mmcv orders them (bias at 7, then conv_cfg, norm_cfg, act_cfg)
    got = built_layers("conv_module", (3, 16, 3, 2, 1, 1, 1, False, None, {"type": "BN"}, {"type": "GELU"}), {})
    assert got == [("torch.nn.Conv2d", (3, 16, 3, 2, 1, 1, 1), {}), ("torch.nn.BatchNorm2d", (16,), {}),
                   ("torch.nn.GELU", (), {})]


def test_ffn_activation_and_dropouts() -> None:
    got = built_layers("ffn", (), {"embed_dims": 8, "act_cfg": {"type": "GELU"}, "ffn_drop": 0.1,
                                    "dropout_layer": {"type": "DropPath", "drop_prob": 0.2}})
    assert got == [("torch.nn.GELU", (), {}), ("torch.nn.Dropout", (0.1,), {}),
                   ("mmcv.cnn.bricks.drop.DropPath", (0.2,), {})]


def test_unknown_configs_build_nothing_known() -> None:
    assert built_layers("norm", (UNKNOWN, 64), {}) == []
    assert built_layers("act", ({"type": "MyAct"},), {}) == []
    assert registry_build(UNKNOWN) == []
    assert registry_build({"type": "ResNet", "depth": 50}) == []
    assert registry_build({"type": "GELU"}) == [("torch.nn.GELU", (), {})]
