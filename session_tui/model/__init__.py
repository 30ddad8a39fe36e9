"""The session model: pure Python, never imports Textual.

Layers, bottom up: ``records`` (one line → JSON object or a reason it is
bad), ``line_index`` (byte offsets of lines, torn tail, reload detection),
``formats`` (one adapter per on-disk format), ``tree`` (the entry tree in
compact arrays), ``context`` and ``tools`` (what the model would be sent and
whether its tool calls are answered), ``session`` (ties them together).

Nothing is imported here: the picker's first frame needs only a few of
these modules, and each costs start-up time.
"""
