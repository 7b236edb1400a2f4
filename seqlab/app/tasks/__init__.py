"""Each task's views of its runs and its data: the test-split figure, the SavedModel's answer, the Data page's
preview, and the parts of the pages that use one task's runs (Forecast, Classify, Translate, Generate, Fill in).

``seqlab.app`` imports every module here, so every task's views are registered
(``seqlab.app.task_views``) whichever page runs first.
"""
