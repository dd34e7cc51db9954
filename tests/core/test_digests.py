"""core.digests: SHA-256 from the interpreter's own hash for a few small inputs, OpenSSL past 256 KiB."""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys

import pytest

from openalice.core import digests


def fresh(code: str) -> list[str]:
    """Run ``code`` in a new interpreter (hashlib not loaded yet) and return its printed lines."""
    out = subprocess.run([sys.executable, "-c", "from openalice.core import digests\nimport sys\n" + code],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@pytest.mark.parametrize("size", [0, 1, 55, 56, 63, 64, 65, 1000, 4096, digests.LARGE, digests.LARGE + 1])
def test_the_digest_is_sha256_whichever_implementation_computes_it(size):
    data = random.Random(size).randbytes(size)
    assert digests.sha256_hex(data) == hashlib.sha256(data).hexdigest()
    builtin = digests._small_constructor()(data).hexdigest()
    assert builtin == hashlib.sha256(data).hexdigest()


def test_a_hash_object_takes_more_bytes_like_hashlibs():
    data = os.urandom(10_000)
    h = digests.sha256(data[:3000], total=len(data))
    h.update(data[3000:])
    assert h.hexdigest() == hashlib.sha256(data).hexdigest()
    assert h.digest() == hashlib.sha256(data).digest()


def test_small_inputs_never_load_openssl():
    code = ("print(digests.sha256_hex(b'abc'))\nh = digests.sha256(b'x' * 1000)\nh.update(b'y')\n"
            "print('hashlib' in sys.modules, '_hashlib' in sys.modules)")
    assert fresh(code) == [hashlib.sha256(b"abc").hexdigest(), "False", "False"]


def test_a_large_input_or_a_large_total_goes_to_openssl():
    assert fresh(f"digests.sha256_hex(bytes({digests.LARGE + 1}))\nprint('hashlib' in sys.modules)") == ["True"]
    assert fresh(f"digests.sha256(b'', total={digests.LARGE + 1})\nprint('hashlib' in sys.modules)") == ["True"]


def test_many_small_inputs_switch_to_openssl_once_they_add_up():
    # 300 KiB of 1 KiB revisions: the builtin hash for the first 256 KiB, then OpenSSL
    code = ("seen = []\nfor i in range(300):\n    digests.sha256_hex(bytes(1024))\n"
            "    seen.append('hashlib' in sys.modules)\nprint(seen.index(True))")
    assert fresh(code) == [str(digests.LARGE // 1024)]


def test_once_hashlib_is_loaded_every_hash_uses_it():
    assert fresh("import hashlib\nprint(type(digests.sha256(b'a')) is type(hashlib.sha256()))") == ["True"]


def _interpreters() -> list[str]:
    """This interpreter, and any CPython 3.12+ on PATH (the builtin hash's module was renamed there)."""
    import shutil

    found = [sys.executable]
    for name in ("python3.12", "python3.13", "python3.14"):
        path = shutil.which(name)
        if path and subprocess.run([path, "-c", "pass"], capture_output=True).returncode == 0:
            found.append(path)
    return found


@pytest.mark.parametrize("python", _interpreters())
def test_every_version_hashes_small_inputs_without_openssl(python):
    # the builtin module is the one this interpreter's stdlib_module_names lists (_sha256 on 3.11,
    # _sha2 on 3.12+); the module runs from the checkout, so no install is needed for other versions
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(digests.__file__))))
    code = ("import sys\nfrom openalice.core import digests\nprint(digests.sha256_hex(b'abc'))\n"
            "print(digests._small_constructor().__module__ in digests.BUILTIN_MODULES"
            " or type(digests._small_constructor()(b'')).__module__ in digests.BUILTIN_MODULES)\n"
            "print('_hashlib' in sys.modules)")
    out = subprocess.run([python, "-I", "-c", f"import sys; sys.path.insert(0, {root!r})\n" + code],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [hashlib.sha256(b"abc").hexdigest(), "True", "False"]
