"""Report renderers: text (rich), json (the report contract)."""

from logsleuth.render.json import SCHEMA, report_to_dict, to_json
from logsleuth.render.text import render_text

__all__ = ["SCHEMA", "report_to_dict", "to_json", "render_text"]
