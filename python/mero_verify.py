# SPDX-License-Identifier: Apache-2.0
"""mero_verify - verify an Intel TDX quote from Python through libmero.so (ctypes).

The same contract as calimero-tee-verify (calimero-tee-verify(1), docs/bindings.md), in process:
no compiled extension, no pip dependency, only libmero.so.0 and its Debian libraries.

    import mero_verify
    verdict = mero_verify.verify(quote, nonce, app_hash, collateral=coll, time=1752919234)
    verdict["valid"]   # the dict is the CLI's stdout document, member for member

verify() returns the verdict document (the one-shot exit status 0). Unusable input (exit 1)
raises InputError, no verdict (exit 2) raises NoVerdict; both are VerifyError, carrying
.exit_code and .document (the CLI's {"error": ...} document). verify_json() takes a request
as the CLI reads it and returns (exit_code, document) without raising.

Thread safety: calls may come from any number of threads at once; the library's verification
is thread-safe and its caches are shared by all callers in the process (include/mero/tee_verify.h).
ctypes releases the GIL for the duration of each call, so threads verify in parallel.

The library is found, in order: $MERO_LIBMERO (a path), the build tree next to this file
(../build/release/libmero.so.0), the libdir of the install this copy came from (`make install`
writes it below, issue 35), then the dynamic loader's search for libmero.so.0.
"""
import base64
import ctypes
import json
import os
import threading

__all__ = ["verify", "verify_json", "VerifyError", "InputError", "NoVerdict", "library_path"]

SONAME = "libmero.so.0"
# The install's libdir: None in the source tree; `make install` writes its LIBDIR here.
_INSTALLED_LIBDIR = None


class VerifyError(Exception):
    """No verdict document: .exit_code (1 or 2) and .document ({"error": message})."""

    def __init__(self, exit_code, document):
        super().__init__(document.get("error", "calimero-tee-verify failed"))
        self.exit_code = exit_code
        self.document = document


class InputError(VerifyError, ValueError):
    """Exit status 1: the input was unusable."""


class NoVerdict(VerifyError):
    """Exit status 2: no verdict (the quote did not parse, collateral unavailable)."""


_lock = threading.Lock()
_lib = None
_path = None


def _candidates():
    env = os.environ.get("MERO_LIBMERO")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "..", "build", "release", SONAME)
    if _INSTALLED_LIBDIR:
        yield os.path.join(_INSTALLED_LIBDIR, SONAME)
    yield SONAME


def _load():
    global _lib, _path
    with _lock:
        if _lib is not None:
            return _lib
        errors = []
        for cand in _candidates():
            if os.sep in cand and not os.path.exists(cand):
                errors.append(cand + ": not found")
                continue
            try:
                lib = ctypes.CDLL(cand)
            except OSError as e:
                errors.append(str(e))
                continue
            f = lib.mero_tee_verify_json_alloc
            f.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]
            f.restype = ctypes.c_int
            lib.mero_tee_verify_free.argtypes = [ctypes.c_void_p]
            lib.mero_tee_verify_free.restype = None
            _lib, _path = lib, cand
            return lib
        raise OSError("mero_verify: cannot load libmero: " + "; ".join(errors))


def library_path():
    """The libmero that was loaded (loading it if needed)."""
    _load()
    return _path


def verify_json(request, allow_fetch=True):
    """Judge one request (a JSON text, bytes, or a dict) exactly as calimero-tee-verify judges
    its stdin. Returns (exit_code, document): 0 a verdict, 1 unusable input, 2 no verdict."""
    lib = _load()
    if isinstance(request, dict):
        request = json.dumps(request, separators=(",", ":"))
    if isinstance(request, str):
        request = request.encode("utf-8")
    out = ctypes.c_void_p()
    out_len = ctypes.c_size_t()
    code = lib.mero_tee_verify_json_alloc(request, len(request), 1 if allow_fetch else 0,
                                          ctypes.byref(out), ctypes.byref(out_len))
    if not out.value:
        return 2, {"error": "could not verify: out of memory"}
    try:
        text = ctypes.string_at(out.value, out_len.value)
    finally:
        lib.mero_tee_verify_free(out)
    return code, json.loads(text)


def _hex32(name, v):
    # the library judges the length, so a wrong one is the CLI's own InputError
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    if isinstance(v, str):
        return v
    raise TypeError("%s: bytes (32) or a hex string" % name)


def request(quote, nonce, app_hash, collateral=None, time=None):
    """The request verify() sends: quote bytes go as quote_b64, a str quote is taken as the
    base64 text `meroctl tee attest` returns; nonce and app_hash as 32 bytes or 64 hex;
    collateral a QuoteCollateralV3 dict or its JSON text; time unix seconds."""
    if isinstance(quote, (bytes, bytearray, memoryview)):
        q = base64.b64encode(bytes(quote)).decode("ascii")
    elif isinstance(quote, str):
        q = quote
    else:
        raise TypeError("quote: bytes, or base64 text")
    req = {"quote_b64": q, "nonce_hex": _hex32("nonce", nonce),
           "app_hash_hex": _hex32("app_hash", app_hash)}
    if collateral is not None:
        if isinstance(collateral, (str, bytes, bytearray)):
            collateral = json.loads(collateral)
        req["collateral"] = collateral
    if time is not None:
        if isinstance(time, bool) or not isinstance(time, int):
            raise TypeError("time: unix seconds as an int")
        req["time_unix"] = time
    return req


def verify(quote, nonce, app_hash, collateral=None, time=None):
    """Verify a TDX quote; returns the verdict dict (read "valid"), the same document
    calimero-tee-verify prints. Without collateral it is fetched (CALIMERO_TEE_COLLATERAL_URL,
    else Intel PCS), once an hour per process. Raises InputError or NoVerdict otherwise."""
    code, doc = verify_json(request(quote, nonce, app_hash, collateral, time))
    if code == 0:
        return doc
    raise (InputError if code == 1 else NoVerdict)(code, doc)
