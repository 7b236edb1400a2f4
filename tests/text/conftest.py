"""Small corpora for the text tests: a verse, and Python's own pydoc topics (always present)."""

import pytest
from pydoc_data.topics import topics

VERSE = """To be, or not to be, that is the question:
Whether 'tis nobler in the mind to suffer
The slings and arrows of outrageous fortune,
Or to take arms against a sea of troubles
And by opposing end them. To die - to sleep,
No more; and by a sleep to say we end
The heart-ache and the thousand natural shocks
That flesh is heir to: 'tis a consummation
Devoutly to be wish'd."""

# Strings that stress standardisation and the cutting rules in both engines.
TRICKY = [
    "To be,  or NOT to be:\tthat is\r\nthe question!!",
    "   Whether 'tis nobler\n\n\n\nin the mind…  ",
    "ÉCOLE ΣΑΣ naïve — “quoted” [brackets] \\back\\slash a-b ^caret",
    "",
    " \n\t ",
    "zzz qqq 123 ###",
    "x",
]


@pytest.fixture(scope="session")
def pydoc_text():
    return "\n".join(topics[name] for name in sorted(topics))
