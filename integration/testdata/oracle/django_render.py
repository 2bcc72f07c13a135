"""django: render a template twice; Variable.resolve runs for each variable."""
import django
from django.conf import settings

settings.configure(TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates"}])
django.setup()

from django.template import Context, Template  # noqa: E402

t = Template("{{ name|upper }} has {{ items|length }} items")
for name, items in (("ann", [1, 2]), ("bob", [3])):
    print(t.render(Context({"name": name, "items": items})))
