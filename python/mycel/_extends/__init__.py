"""mycel._extends: where MindSpore programs and tests reach its compiler's Python side
(``mindspore._extends.parse.compile_config``)."""
