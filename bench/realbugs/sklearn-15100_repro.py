# scikit-learn__scikit-learn-15100: strip_accents_unicode leaves strings already in NFKD form alone.
import unicodedata

from sklearn.feature_extraction.text import CountVectorizer


def vocabulary(docs):
    vec = CountVectorizer(strip_accents="unicode")
    vec.fit_transform(docs)
    return sorted(vec.vocabulary_)


docs = [
    "the café menu",  # composed: é is one code point
    "a naïve cook",
    unicodedata.normalize("NFKD", "the naïve café"),  # decomposed: i + U+0308, e + U+0301
]
words = vocabulary(docs)
print(words)
print("expected:", ["cafe", "cook", "menu", "naive", "the"])
