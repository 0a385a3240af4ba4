#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# noise_vectors.py - derives the Noise_XX_25519_ChaChaPoly_SHA256 known-answer vectors that
# tests/unit/test_net.c embeds, with an independent implementation (Debian python3-dissononce).
# Fixed keys: initiator static 01*32, ephemeral 02*32; responder static 03*32, ephemeral 04*32;
# empty prologue; payloads "", "resp-payload", "init-payload"; then one transport message each
# way ("hello" initiator->responder, "world" back). Prints NAME HEX lines.
# Usage: /usr/bin/python3 tests/interop/noise_vectors.py
from dissononce.processing.impl.handshakestate import HandshakeState
from dissononce.processing.impl.symmetricstate import SymmetricState
from dissononce.processing.impl.cipherstate import CipherState
from dissononce.processing.handshakepatterns.interactive.XX import XXHandshakePattern
from dissononce.cipher.chachapoly import ChaChaPolyCipher
from dissononce.dh.x25519.x25519 import X25519DH
from dissononce.dh.x25519.private import PrivateKey
from dissononce.hash.sha256 import SHA256Hash


class FixedEphemeralDH(X25519DH):
    """X25519 whose fresh ephemeral key is preset (dissononce draws it inside write 'e')."""

    def __init__(self, eph):
        super().__init__()
        self.eph = eph

    def generate_keypair(self, privatekey=None):
        return super().generate_keypair(privatekey or PrivateKey(bytes([self.eph]) * 32))


def hs(eph):
    return HandshakeState(SymmetricState(CipherState(ChaChaPolyCipher()), SHA256Hash()),
                          FixedEphemeralDH(eph))


dh = X25519DH()
kp = lambda b: dh.generate_keypair(PrivateKey(bytes([b]) * 32))
i, r = hs(2), hs(4)
i.initialize(XXHandshakePattern(), True, b"", s=kp(1))
r.initialize(XXHandshakePattern(), False, b"", s=kp(3))
m1, m2, m3 = bytearray(), bytearray(), bytearray()
i.write_message(b"", m1)
r.read_message(bytes(m1), bytearray())
r.write_message(b"resp-payload", m2)
p = bytearray()
i.read_message(bytes(m2), p)
assert bytes(p) == b"resp-payload"
ci = i.write_message(b"init-payload", m3)
p = bytearray()
cr = r.read_message(bytes(m3), p)
assert bytes(p) == b"init-payload"
t1 = ci[0].encrypt_with_ad(b"", b"hello")
t2 = cr[1].encrypt_with_ad(b"", b"world")
print("msg1", bytes(m1).hex())
print("msg2", bytes(m2).hex())
print("msg3", bytes(m3).hex())
print("t_i2r", bytes(t1).hex())
print("t_r2i", bytes(t2).hex())
