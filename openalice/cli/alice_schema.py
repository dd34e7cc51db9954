"""``alice schema validate``: check JSON files against a JSON Schema, for CI steps."""

from __future__ import annotations

from ._dispatch import Context, add_verb

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse


def register(sub, common) -> None:
    group = sub.add_parser(
        "schema", help="validate JSON files against a JSON Schema (draft 2020-12)",
        description="JSON Schema draft 2020-12, complete: unknown keywords are errors, references "
                    "resolve within the schema or in a local registry (never the network).",
        epilog="examples:\n  alice schema validate spec/issue.schema.json data/*.json\n")
    verbs = group.add_subparsers(dest="schema_verb", metavar="VERB", required=True)
    p = add_verb(
        verbs, "validate", cmd_validate, common=common,
        help="validate JSON files against a schema; exit 0 if all are valid, 2 otherwise",
        description="Compile SCHEMA once and validate every FILE. A reference that leaves SCHEMA "
                    "resolves in the registry: the JSON files of each --registry DIR (searched "
                    "recursively) by their $id and file URI, and the draft 2020-12 metaschemas; "
                    "nothing is fetched. Exit 0 when every file is valid, 2 when one is not or "
                    "SCHEMA is unusable (the error names it). --format github prints GitHub "
                    "Actions ::error annotations with file and line; --format json is --json "
                    "(spec/schema-validate.schema.json).",
        examples="  alice schema validate spec/issue.schema.json a.json b.json\n"
                 "  alice schema validate api.schema.json payloads/*.json --registry schemas/\n"
                 "  alice schema validate config.schema.json config.json --format github\n"
                 "  alice schema validate s.json doc.json --assert-formats --json")
    p.add_argument("schema", metavar="SCHEMA", help="the schema file (JSON)")
    p.add_argument("files", metavar="FILE", nargs="+", help="JSON files to validate")
    p.add_argument("--registry", metavar="DIR", action="append", default=[],
                   help="a directory (searched recursively) or file of schemas that references may name "
                        "(repeatable)")
    p.add_argument("--format", dest="output", choices=("text", "json", "github"), default="text",
                   help="output: text (default), json (as --json) or github (Actions annotations)")
    p.add_argument("--assert-formats", action="store_true",
                   help="make the 'format' keyword an assertion (date-time, email, uri, ...)")


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _summary(report: dict) -> str:
    bad = sum(1 for f in report["files"] if not f["valid"])
    total = len(report["files"])
    return f"{total - bad} of {total} file(s) valid against {report['schema']}"


def render_text(report: dict) -> str:
    lines = []
    for entry in report["files"]:
        if entry["valid"]:
            lines.append(f"{entry['file']}: valid")
        for error in entry["errors"]:
            where = entry["file"] + (f":{error['line']}" if error["line"] else "")
            lines.append(f"{where}: {error['path'] or '/'}: {error['message']}")
    lines.append(_summary(report))
    return "\n".join(lines)


def render_github(report: dict) -> str:
    lines = []
    for entry in report["files"]:
        for error in entry["errors"]:
            props = f"file={_escape_property(entry['file'])}"
            if error["line"]:
                props += f",line={error['line']}"
            title = "JSON Schema" + (f" {error['keyword']}" if error["keyword"] else "")
            props += f",title={_escape_property(title)}"
            lines.append(f"::error {props}::{_escape_data((error['path'] or '/') + ': ' + error['message'])}")
    lines.append(_summary(report))
    return "\n".join(lines)


def cmd_validate(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.core.schema.files import validate_files  # lazy: verb handler
    from openalice.core.schema.report import SchemaError  # lazy: verb handler

    envelope_by_runner = ctx.json  # --json: the runner prints a handled error's envelope
    if args.output == "json":
        ctx.json = True
    try:
        report = validate_files(args.schema, args.files, registry=args.registry,
                                format_assertion=args.assert_formats)
    except SchemaError as err:
        if args.output == "github":  # the annotation names the schema; the error still exits 2
            props = f"file={_escape_property(err.file or args.schema)},title=JSON Schema unusable"
            ctx.stdout.write(f"::error {props}::{_escape_data((err.field or '/') + ': ' + err.message)}\n")
        elif args.output == "json" and not envelope_by_runner:
            from openalice.core.output import to_json  # lazy: verb handler

            ctx.stdout.write(to_json({"error": err.to_dict()}) + "\n")  # the envelope, as --json prints it
            ctx.json = False  # printed: nothing more at finish
            return err.exit_code
        raise
    ctx.emit(report, render_github if args.output == "github" else render_text)
    if not report["valid"]:
        bad = sum(1 for f in report["files"] if not f["valid"])
        ctx.failing("schema_violation", f"{bad} of {len(report['files'])} file(s) do not match {args.schema}")
    return 0 if report["valid"] else 2
