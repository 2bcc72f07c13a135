# django__django-11880: Field.__deepcopy__ does not copy error_messages, so every form shares one
# dict and changing one form's message in place changes it for all of them.
import django
from django.conf import settings

settings.configure(USE_I18N=False)
django.setup()

from django import forms  # noqa: E402


class SignupForm(forms.Form):
    name = forms.CharField()
    email = forms.EmailField()


def make_form(data, required_message=None):
    form = SignupForm(data)
    if required_message:
        form.fields["name"].error_messages["required"] = required_message
    return form


def main():
    make_form({}, required_message="Tell us your name, friend")
    plain = make_form({})
    plain.is_valid()
    print(list(plain.errors["name"]))
    print("expected: ['This field is required.']")


main()
