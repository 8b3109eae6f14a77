"""Star-import hubs (migrate_lens.stars): what ``from <hub> import *`` binds, read from text."""

from migrate_lens.stars import absolute, bindings_key, file_bindings, hub_paths, star_bindings, star_imports


def test_absolute_resolves_relative_levels() -> None:
    assert absolute("pkg.vision.models", False, 1, "layers") == "pkg.vision.layers"
    assert absolute("pkg.vision.models", False, 2, "torch_core") == "pkg.torch_core"
    assert absolute("pkg.vision", True, 1, "core") == "pkg.vision.core"
    assert absolute("pkg", False, 3, "x") == ""  # (above the top-level package)
    assert absolute("pkg.a", False, 0, "numpy") == "numpy"


def test_hub_bindings_follow_chains_and_keep_public_names() -> None:
    files = {
        "pkg.imports": (False, b"import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
                               b"from torch import Tensor as _T, tensor\ntry:\n    import numpy as np\nexcept ImportError:\n    pass\n"),
        "pkg.basics": (False, b"from .imports import *\nfrom collections import (\n    OrderedDict,\n    defaultdict as dd)\n"),
        "pkg.layers": (False, b"from .basics import *\nclass A(nn.Module): pass\n"),
        "pkg.cycle_a": (False, b"from .cycle_b import *\nimport math\n"),
        "pkg.cycle_b": (False, b"from .cycle_a import *\n"),
        "pkg.user": (False, b"from .cycle_b import *\n"),
        "pkg.bad": (False, b"\xff\xfe from .imports import *\n"),
    }
    hubs = star_bindings(files)
    assert hubs["pkg.basics"]["nn"] == "torch.nn"
    assert hubs["pkg.basics"]["F"] == "torch.nn.functional"
    assert hubs["pkg.basics"]["torch"] == "torch"
    assert hubs["pkg.basics"]["np"] == "numpy"
    assert hubs["pkg.basics"]["dd"] == "collections.defaultdict"
    assert hubs["pkg.basics"]["OrderedDict"] == "collections.OrderedDict"
    assert "_T" not in hubs["pkg.imports"] and hubs["pkg.imports"]["tensor"] == "torch.tensor"
    assert hubs["pkg.cycle_a"]["math"] == "math" and "pkg.cycle_b" in hubs  # (a cycle of star imports ends)
    star = file_bindings("pkg.layers", False, files["pkg.layers"][1], hubs)
    assert star and star[0][0] == "pkg.basics" and ("nn", "torch.nn") in star[0][1]
    assert file_bindings("pkg.imports", False, files["pkg.imports"][1], hubs) == ()
    assert bindings_key({}) == "" and bindings_key({"h": {"b": "x", "a": "y"}}) == "h:a=y,b=x"


def test_all_limits_the_names_a_star_import_binds() -> None:
    files = {"pkg.hub": (False, b"import torch\nimport numpy as np\n__all__ = ['torch']\n"),
             "pkg.user": (False, b"from pkg.hub import *\n")}
    assert star_bindings(files) == {"pkg.hub": {"torch": "torch"}}


def test_star_imports_and_hub_paths() -> None:
    assert star_imports("pkg.a", False, b"x = 2 * 3\nfrom .b import *\nfrom os import path\n") == ["pkg.b"]
    assert star_imports("pkg.a", False, b"import os\n") == []
    assert hub_paths("pkg.sub.mod", "pkg") == ("sub/mod.py", "sub/mod/__init__.py")
    assert hub_paths("pkg", "pkg") == ("", "__init__.py")
    assert hub_paths("other.mod", "pkg") == ("", "")
    assert hub_paths("sub.mod", "") == ("sub/mod.py", "sub/mod/__init__.py")


def test_flag_constants_are_those_no_code_switches() -> None:
    from migrate_lens.consts import by_name, file_constants, module_constants

    files = {
        "pkg.flags": b"DEBUG = False\nCHECK_NAN: bool = False\nUSE_FAST = True\nLEVEL = 3\nMODE = 'a'\nTWICE = False\nTWICE = True\n",
        "pkg.train": b"from . import flags\nflags.USE_FAST = args.fast\n",
        "pkg.other": b"def f():\n    global CHECK_NAN\n    CHECK_NAN = True\n",
        "pkg.layers": b"from .flags import DEBUG\nif DEBUG:\n    pass\n",
    }
    got = module_constants(files)
    assert got == {"pkg.flags.DEBUG": "False"}  # (switched, rebound, not a flag literal: left out)
    assert file_constants(files["pkg.layers"], by_name(got)) == (("pkg.flags.DEBUG", "False"),)
    assert file_constants(b"x = 1\n", by_name(got)) == ()


def test_a_flag_switched_anyhow_is_no_constant() -> None:
    from migrate_lens.consts import module_constants

    def const(*others: bytes) -> dict[str, str]:
        files = {"pkg.flags": b"DEBUG = False\n"}
        files.update({f"pkg.m{i}": o for i, o in enumerate(others)})
        return module_constants(files)

    assert const(b"from .flags import DEBUG\nif DEBUG:\n    pass\n") == {"pkg.flags.DEBUG": "False"}
    assert const(b"try:\n    import xformers\n    DEBUG = True\nexcept ImportError:\n    pass\n") == {}
    assert const(b"flags.DEBUG, flags.CHECK = a, b\n") == {}
    assert const(b'globals()["DEBUG"] = on\n') == {}
    assert const(b'setattr(\n    flags, "DEBUG", on\n)\n') == {}
    assert const(b"def forward(self, x, DEBUG=True):\n    pass\n") == {}
    assert const(b"def f():\n    global DEBUG\n    DEBUG = 1\n") == {}
    assert const(b"flags.DEBUG |= verbose\n") == {}


def test_hub_bindings_are_module_level_and_listed() -> None:
    files = {
        "pkg.hub": (False, b"import torch\nimport numpy as np\n__all__ = ['torch', 'np']\n"
                           b"TABLE = {'F': 1}\n\n\ndef helper():\n    import cupy as np\n    return np\n"),
        "pkg.hub2": (False, b"import torch.nn.functional as F\ntry:\n    import apex as ax\nexcept ImportError:\n"
                            b"    ax = None\n\n\nclass A:\n    import math as m\n"),
        "pkg.user": (False, b"from .hub import *\nfrom .hub2 import *\n"),
    }
    hubs = star_bindings(files)
    assert hubs["pkg.hub"] == {"torch": "torch", "np": "numpy"}  # (not F from a later dict, not cupy)
    assert hubs["pkg.hub2"] == {"F": "torch.nn.functional", "ax": "apex"}  # (not the class body's m)
