"""The user's own files: a dataset's upload on the Data and Train pages (``upload``: the registry; one module per
kind of file) and the Models page's own-data predictions and uploaded models (``model_upload``).

``seqlab.app`` imports every module here, so every dataset that reads a file has its upload
in ``seqlab.app.uploads.upload.UPLOADS``.
"""
