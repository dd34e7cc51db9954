"""``alice doctor``: homes, workspaces, agent CLIs, credentials, adapters, timers."""

from __future__ import annotations

from ._dispatch import Context, add_verb

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse


def register(sub, common) -> None:
    p = add_verb(sub, "doctor", cmd_doctor, common=common,
                 help="check the set-up; exit 0 when all is well, 3 when something needs attention",
                 description="Reports one line per finding: homes and their permissions, registered "
                             "workspaces and their settings, which agent CLIs are on PATH (and their "
                             "versions; none at all needs attention), whether each agent a scheduled "
                             "issue runs on native auth is logged in (its own status command, bounded "
                             "by --timeout; no token is read), credentials (names only), adapter health, "
                             "the automation "
                             "health of every scheduled issue (failed, interrupted and blocked ones "
                             "need attention, and so does one whose agent is not installed or whose "
                             "credential is missing), and whether the scan timer is installed and "
                             "really fires (the scan's heartbeat is at most two minutes old), and each "
                             "workspace's harness files (stale, drifted, shims, config). "
                             "It changes nothing. ALICE_NOW sets the clock.",
                 examples="  alice doctor\n  alice doctor --json")
    p.add_argument("--timeout", type=float, default=5.0,
                   help="seconds to wait for each '<agent> --version' and login status (default 5)")


_MARKS = {"ok": "ok", "info": "--", "attention": "!!"}


def cmd_doctor(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import doctor

    report = doctor.run_checks(version_timeout=args.timeout, now=ctx.now())

    def human(d: dict) -> str:
        from openalice.core.colour import state  # lazy: human text only (--json never colours)

        lines = [f"{state('[' + _MARKS[f['status']] + ']', word=f['status'])} {f['check']}: "
                 f"{f['message']}" for f in d["findings"]]
        s = d["summary"]
        verdict = "all well" if d["ok"] else "needs attention"
        lines.append(f"{state(verdict)}: {s['ok']} ok, {s['info']} info, "
                     f"{s['attention']} need attention")
        return "\n".join(lines)

    ctx.emit(report.to_dict(), human)
    if report.exit_code:
        ctx.failing("needs_attention", f"{report.to_dict()['summary']['attention']} finding(s) "
                                       "need attention")
    return report.exit_code
