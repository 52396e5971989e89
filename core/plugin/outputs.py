"""Tool answers, for plugin authors: ``from medlit.core.plugin import outputs``.

Every tool takes a ``responseFormat`` (``ResponseFormat``, declared with
``RESPONSE_FORMAT_FIELD`` or ``response_format_field()``); a large answer fits
``maxResponseCharacters`` with ``apply_budget`` (``json_size`` measures an item), and what did not
fit is named (``DeferredIds``, ``Deferred``, ``BudgetSplit``). ``Image`` and ``ResourceLink``
let an output carry an inline picture or a link to a resource.
"""

from ..budget import BudgetSplit, Deferred, apply_budget, json_size
from ..models import (
    RESPONSE_FORMAT_FIELD,
    DeferredIds,
    Image,
    ResourceLink,
    ResponseFormat,
    response_format_field,
)

__all__ = [
    "RESPONSE_FORMAT_FIELD",
    "BudgetSplit",
    "Deferred",
    "DeferredIds",
    "Image",
    "ResourceLink",
    "ResponseFormat",
    "apply_budget",
    "json_size",
    "response_format_field",
]
