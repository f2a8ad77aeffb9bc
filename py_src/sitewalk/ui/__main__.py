"""Command line: check or render a UI spec file, for agent authors' CI.

    python -m sitewalk.ui check SPEC.json    one JSON issue a line; exit 1 if invalid, 0 if valid
    python -m sitewalk.ui render SPEC.json   the HTML the registry renders (exit 1 if invalid)
    python -m sitewalk.ui schema             the catalog as JSON Schema (what the model sees)

Exit 2 when the file cannot be read or is not JSON. A spec may carry an `identity`
(message id, tool call id, revision); it is ignored here.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from sitewalk_shared.contracts.catalog import catalog_json_schema
from sitewalk_shared.ui_spec.validate import validate_spec

from .render import render_spec


def _load(path: str) -> object:
    with open(path, encoding="utf-8") if path != "-" else sys.stdin as handle:
        return json.load(handle)


def _without_identity(spec: object) -> object:
    if isinstance(spec, dict) and "identity" in spec:
        return {k: v for k, v in spec.items() if k != "identity"}
    return spec


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sitewalk.ui", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("check", "print the issues, one JSON object a line"),
                       ("render", "print the HTML of a valid spec")):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("spec", help="path of the spec JSON file, or - for stdin")
    sub.add_parser("schema", help="print the catalog as JSON Schema")
    args = parser.parse_args(argv)

    if args.command == "schema":
        print(json.dumps(catalog_json_schema(), indent=1, sort_keys=True))
        return 0
    try:
        spec = _without_identity(_load(args.spec))
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {args.spec}: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"error: {args.spec} is not JSON: {exc}", file=sys.stderr)
        return 2
    issues = validate_spec(spec)
    if args.command == "check":
        for issue in issues:
            print(json.dumps(issue.to_dict(), ensure_ascii=False, sort_keys=True))
        if not issues:
            print("ok", file=sys.stderr)
        return 1 if issues else 0
    if issues:  # render
        for issue in issues:
            print(json.dumps(issue.to_dict(), ensure_ascii=False, sort_keys=True), file=sys.stderr)
        return 1
    assert isinstance(spec, dict)  # validate_spec accepts nothing but an object
    print(render_spec(spec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
