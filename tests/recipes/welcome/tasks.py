from celery import shared_task

from config.task_retries import PIPELINE_STEP
from tests.recipes.welcome import services


@shared_task(**PIPELINE_STEP)
def welcome_refresh(ids: list[int]) -> int:
    return services.welcome_refresh(ids=ids)
