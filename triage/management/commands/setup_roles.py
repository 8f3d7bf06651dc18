from django.core.management.base import BaseCommand, CommandError

from triage.services import roles


class Command(BaseCommand):
    help = "Create or update the role groups (viewers, triagers, release managers, admins)."

    def handle(self, *args, **options):
        try:
            counts = roles.roles_sync()
        except roles.RoleError as exc:
            raise CommandError(str(exc)) from exc
        for name, count in counts.items():
            self.stdout.write(f"{name}: {count} permissions")
