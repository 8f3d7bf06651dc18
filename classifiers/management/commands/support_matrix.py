"""python manage.py support_matrix [--show] [--platform linux|windows] [--json]
   python manage.py support_matrix --set PLATFORM RELEASE --targets gfx942,gfx950 --source URL
                                   [--note TEXT] [--by NAME]
   python manage.py support_matrix --remove PLATFORM RELEASE
   python manage.py support_matrix --import PATH.json [--source URL] [--by NAME]
   python manage.py support_matrix --explain TARGET VERSION [--os OS]

ROCm's support matrix (classifiers/support_matrix.py): the releases it holds per platform with
their targets, where each list comes from (the bundled file, the setting, an edited row); edited
releases added, replaced or removed, at once for every worker; a file shaped as the bundled one
imported all or nothing; and the verdict on one target and release in words."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from classifiers import support_matrix

MAX_FILE_BYTES = 2 << 20


class Command(BaseCommand):
    help = (
        "Show ROCm's support matrix, add, replace or remove a release's supported gfx targets "
        "(--set, --remove, --import), or explain a verdict (--explain TARGET VERSION)."
    )

    def add_arguments(self, parser):
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--show", action="store_true", help="list the releases (the default)")
        action.add_argument("--set", nargs=2, metavar=("PLATFORM", "RELEASE"))
        action.add_argument("--remove", nargs=2, metavar=("PLATFORM", "RELEASE"))
        action.add_argument("--import", dest="import_path", metavar="PATH.json")
        action.add_argument("--explain", nargs=2, metavar=("TARGET", "VERSION"))
        parser.add_argument("--platform", choices=support_matrix.PLATFORMS)
        parser.add_argument("--json", action="store_true", help="--show as one JSON object")
        parser.add_argument("--targets", help="--set: comma-separated gfx targets")
        parser.add_argument("--source", help="the URL of the page that lists them")
        parser.add_argument("--note", default="")
        parser.add_argument("--os", default="", help="--explain: the OS as reported (Windows 11)")
        parser.add_argument("--by", default="manage.py support_matrix", help="who changes it")

    def handle(self, *args, **options):
        try:
            if options["set"]:
                return self._set(options)
            if options["remove"]:
                platform, release = options["remove"]
                support_matrix.matrix_release_remove(platform=platform, release=release)
                self.stdout.write(f"removed the edited row of ROCm {release} on {platform}")
                return self._now(platform.lower(), release)
            if options["import_path"]:
                return self._import(options)
        except support_matrix.MatrixInvalid as exc:
            raise CommandError(str(exc)) from None
        if options["explain"]:
            target, version = options["explain"]
            found = support_matrix.verdict(target, version, options["os"])
            self.stdout.write(f"{found.state}: {found.sentence}")
            return None
        return self._show(options)

    def _set(self, options):
        if not options["targets"] or not options["source"]:
            raise CommandError("--set needs --targets gfx...,gfx... and --source URL")
        platform, release = options["set"]
        row = support_matrix.matrix_release_set(
            platform=platform,
            release=release,
            targets=options["targets"],
            source=options["source"],
            note=options["note"],
            by=options["by"],
        )
        self.stdout.write(f"set ROCm {row.release} on {row.platform}: {', '.join(row.target_list)}")

    def _now(self, platform: str, release: str) -> None:
        normal = support_matrix.release_of(release)
        entry = support_matrix.entries().get(platform, {}).get(normal)
        if entry is None:
            self.stdout.write(f"ROCm {normal} on {platform} is no longer in the matrix")
        else:
            self.stdout.write(f"ROCm {normal} on {platform} is now the {entry.origin} list")

    def _import(self, options):
        path = Path(options["import_path"])
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise CommandError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB")
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror or exc}") from None
        except (UnicodeDecodeError, ValueError) as exc:
            raise CommandError(f"{path}: not a JSON file ({exc})") from None
        written = support_matrix.matrix_import(
            data=data, source=options["source"] or "", by=options["by"]
        )
        self.stdout.write(f"imported {len(written)} release(s) from {path}: {', '.join(written)}")

    def _show(self, options):
        platforms = [options["platform"]] if options["platform"] else support_matrix.PLATFORMS
        table = support_matrix.entries()
        if options["json"]:
            shown = {
                p: {
                    "newest": support_matrix.newest(p),
                    "releases": {
                        release: {
                            "targets": list(entry.targets),
                            "origin": entry.origin,
                            "source": entry.source,
                            "note": entry.note,
                            "updated_by": entry.updated_by,
                            "updated_at": entry.updated_at,
                        }
                        for release, entry in table[p].items()
                    },
                    "unjudged": support_matrix.unjudged()[p],
                }
                for p in platforms
            }
            self.stdout.write(json.dumps(shown, indent=2))
            return
        for platform in platforms:
            name = support_matrix.PLATFORM_NAMES[platform]
            newest = support_matrix.newest(platform) or "none"
            self.stdout.write(f"{name}: {len(table[platform])} release(s), newest {newest}")
            for release, entry in table[platform].items():
                edited = f" by {entry.updated_by} at {entry.updated_at}" if entry.updated_by else ""
                self.stdout.write(
                    f"  {release:<8} {' '.join(entry.targets)}  [{entry.origin}{edited}] "
                    f"{entry.source}"
                )
            for target, why in support_matrix.unjudged()[platform].items():
                self.stdout.write(f"  not judged on {name}: {target} ({why})")
