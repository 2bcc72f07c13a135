# django__django-12700: SafeExceptionReporterFilter.cleanse_setting does not look into lists, so a
# secret inside a list of dicts is shown on the debug page.
from django.conf import settings

settings.configure(
    DEBUG=True,
    SECRET_KEY="django-insecure-key",
    PAYMENT_BACKENDS={
        "default": {"NAME": "stripe", "API_KEY": "sk_live_default"},
        "fallbacks": [{"NAME": "paypal", "API_KEY": "sk_live_fallback"}],
    },
)

from django.views.debug import SafeExceptionReporterFilter  # noqa: E402


def debug_page_settings():
    return SafeExceptionReporterFilter().get_safe_settings()


def main():
    shown = debug_page_settings()["PAYMENT_BACKENDS"]
    print(shown)
    print("secret shown:", "sk_live" in repr(shown))


main()
