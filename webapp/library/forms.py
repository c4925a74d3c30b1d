"""The upload form collects the file and a title; webapp.library.extract decides what is valid."""

from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import StringField
from wtforms.validators import Length

from webapp.library.documents import TITLE_MAX


class UploadForm(FlaskForm):
    file = FileField(
        "Document",
        validators=[FileRequired("Choose a file to upload.")],
        description="PDF, Markdown (.md), text (.txt) or HTML (.html, .htm), UTF-8 text.",
    )
    title = StringField(
        "Title",
        validators=[Length(max=TITLE_MAX, message=f"At most {TITLE_MAX} characters.")],
        description="Left empty, the file name.",
    )
