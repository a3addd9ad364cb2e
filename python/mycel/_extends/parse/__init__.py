"""``mindspore._extends.parse``: the graph front end's settings MindSpore programs reach
(``compile_config``). mycel's front end is src/frontend; this package holds only names."""
from mycel._extends.parse import compile_config

__all__ = ["compile_config"]
