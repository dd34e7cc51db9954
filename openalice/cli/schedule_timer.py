"""``alice-schedule install-timer --cron|--systemd|--launchd [--write [--enable]]`` and
``uninstall-timer --cron|--systemd|--launchd``."""

from __future__ import annotations

import os

from ._dispatch import Context, add_verb


def register(sub, common) -> None:
    p = add_verb(sub, "install-timer", cmd_install_timer, common=common,
                 help="print (or --write) a timer that runs 'alice-schedule scan' every minute",
                 description="Print a crontab line, a systemd user .service + .timer "
                             "(OnCalendar=minutely, Persistent=true) or a launchd plist "
                             "(StartInterval 60) that runs the scan with absolute paths, and "
                             "create the directory its log goes to ($OPENALICE_HOME/state/"
                             "schedule/). --write installs it: crontab merged idempotently, units "
                             "in ~/.config/systemd/user/, the plist in ~/Library/LaunchAgents/. "
                             "With --enable, a failure to enable puts the files back as they "
                             "were. 'alice doctor' then tells whether the timer really fires.",
                 examples="  alice-schedule install-timer --cron\n"
                          "  alice-schedule install-timer --cron --write\n"
                          "  alice-schedule install-timer --systemd --write --enable\n"
                          "  alice-schedule install-timer --launchd --json\n"
                          "  alice-schedule install-timer --systemd --connectors --write --enable")
    kind = p.add_mutually_exclusive_group(required=True)
    kind.add_argument("--cron", dest="kind", action="store_const", const="cron",
                      help="a line in your crontab (any Unix with cron); logs to "
                           "$OPENALICE_HOME/state/schedule/cron.log")
    kind.add_argument("--systemd", dest="kind", action="store_const", const="systemd",
                      help="a systemd user service + timer (Linux); logs to the journal "
                           "(journalctl --user -u openalice-schedule)")
    kind.add_argument("--launchd", dest="kind", action="store_const", const="launchd",
                      help="a LaunchAgent plist (macOS); logs to "
                           "$OPENALICE_HOME/state/schedule/launchd.log")
    p.add_argument("--write", action="store_true", help="install it in the standard place")
    p.add_argument("--connectors", action="store_true",
                   help="also a service running 'alice connector run' (systemd, launchd): "
                        "reports reach Telegram within seconds, not at the next scan")
    p.add_argument("--enable", action="store_true",
                   help="with --write: also enable it (systemctl --user enable --now / launchctl load)")
    u = add_verb(sub, "uninstall-timer", cmd_uninstall_timer, common=common,
                 help="remove the timer that 'install-timer --write' installed",
                 description="Remove exactly what 'install-timer --write' put in place: the managed "
                             "block of your crontab (every other line stays byte for byte; a crontab "
                             "left empty is removed), or the systemd user units (stopped and "
                             "disabled first when systemctl is there), or the launchd plist "
                             "(unloaded first when launchctl is there). The scans' log directory "
                             "stays. Nothing installed is not an error: it says so.",
                 examples="  alice-schedule uninstall-timer --cron\n"
                          "  alice-schedule uninstall-timer --systemd --json")
    kind = u.add_mutually_exclusive_group(required=True)
    for name, where in (("cron", "the managed line of your crontab"),
                        ("systemd", "the systemd user .service and .timer"),
                        ("launchd", "the LaunchAgent plist")):
        kind.add_argument(f"--{name}", dest="kind", action="store_const", const=name,
                          help=f"remove {where}")


def cmd_install_timer(args, ctx: Context) -> int:
    from openalice.core.errors import UsageError  # lazy: verb handler
    from openalice.schedule import timers  # lazy: verb handler

    if args.enable and not args.write:
        raise UsageError("--enable needs --write", code="usage")
    if args.connectors and args.kind == "cron":
        raise UsageError("--connectors needs --systemd or --launchd (a cron line cannot keep a "
                         "service running; the minute scan already delivers)", code="usage",
                         field="--connectors")
    spec = timers.definition(args.kind, connectors=args.connectors)
    data = {**spec, "created": [], "written": [], "enabled": False}
    if args.write:
        data["created"] = [d for d in spec["directories"] if not os.path.isdir(d)]
        data.update(timers.install(spec, enable=args.enable))
    else:
        # The printed line is meant to be pasted: what it needs must exist already.
        data["created"] = timers.prepare(spec)

    def human(d: dict) -> str:
        lines = [f"# created {path} (the timer's log goes there)" for path in d["created"]]
        if not d["written"]:
            for item in d["files"]:
                if d["kind"] != "cron":
                    lines.append(f"# {item['path']}")
                lines.append(item["content"].rstrip("\n"))
                lines.append("")
            if d["kind"] == "cron":
                lines.append("# install with: alice-schedule install-timer --cron --write")
            else:
                lines.append(f"# install with: alice-schedule install-timer --{d['kind']} --write")
        else:
            lines.extend(f"wrote {path}" for path in d["written"])
            if d["enabled"] and d["kind"] != "cron":
                lines.append("enabled")
            elif d["enable"]:
                lines.append("enable it with:")
                lines.extend("  " + " ".join(argv) for argv in d["enable"])
        return "\n".join(lines).rstrip("\n")

    ctx.emit(data, human)
    return 0


def cmd_uninstall_timer(args, ctx: Context) -> int:
    from openalice.schedule import timer_removal  # lazy: verb handler

    data = timer_removal.uninstall(args.kind)

    def human(d: dict) -> str:
        lines = [f"{'ok  ' if step['ok'] else 'warn'} {' '.join(step['argv'])}"
                 + ("" if step["ok"] or not step["detail"] else f": {step['detail']}")
                 for step in d["disabled"]]
        if not d["removed"]:
            lines.append(f"no {d['kind']} timer installed by 'install-timer --write'; nothing removed")
        elif d["kind"] == "cron":
            lines.append("removed the managed line from your crontab")
        else:
            lines.extend(f"removed {path}" for path in d["removed"])
        return "\n".join(lines)

    ctx.emit(data, human)
    return 0
