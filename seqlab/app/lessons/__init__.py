"""The Lessons page: a lesson's runs queued and compared as they train (``lesson``), then each lesson's own view
(``lesson_views``: the registry; one module of views per topic).

``seqlab.app`` imports every topic module here, so every view a ``seqlab.lessons.Lesson``
names is in ``seqlab.app.lessons.lesson_views.LESSON_VIEWS``.
"""
