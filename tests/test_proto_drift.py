"""The generated package matches proto/ (docs/contributing.md, "The gates"): regenerate into a
temporary folder and compare with what is committed."""

from __future__ import annotations

import filecmp
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "rummyarena" / "v1"


def test_generated_code_matches_proto(tmp_path: Path) -> None:
    protos = sorted(str(p.relative_to(ROOT / "proto")) for p in (ROOT / "proto").rglob("*.proto"))
    assert protos, "no .proto files found"
    args = [
        "grpc_tools.protoc",
        f"-I{ROOT / 'proto'}",
        f"--python_out={tmp_path}",
        f"--pyi_out={tmp_path}",
        f"--grpc_python_out={tmp_path}",
        *protos,
    ]
    assert protoc.main(args) == 0, "protoc failed on proto/"
    fresh = tmp_path / "rummyarena" / "v1"
    made = sorted(p.name for p in fresh.iterdir())
    committed = sorted(p.name for p in GENERATED.iterdir() if p.suffix in (".py", ".pyi"))
    committed.remove("__init__.py")
    assert made == committed, "generated files differ in name: run `make proto`"
    different = [name for name in made if not filecmp.cmp(fresh / name, GENERATED / name, False)]
    assert not different, f"generated code is stale for {different}: run `make proto`"
