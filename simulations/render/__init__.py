"""Everything this project renders for people and files, in one place: property labels (from
`model.properties`), tables as aligned text or Markdown, intervals, history events as JSON and
step-by-step narratives. The CLI, reports, the verification and conformance tables and the
notebooks all render through these, so one change of wording or layout changes every output.

  tables.py     Table, text(), markdown(), interval(), legend(), the DES comparison's tables
  events.py     event_json(): a history event with its wire ids rendered
  narrative.py  describe_action(), parse_action(), describe_event(), narrate()
"""
from model.properties import LABELS

from .events import event_json
from .narrative import describe_action, describe_event, narrate, parse_action
from .tables import Table, comparison_text, interval, legend, markdown, summary_tables, text

__all__ = ["LABELS", "Table", "comparison_text", "describe_action", "describe_event",
           "event_json", "interval", "legend", "markdown", "narrate", "parse_action",
           "summary_tables", "text"]
