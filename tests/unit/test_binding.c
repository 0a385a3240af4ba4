/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_binding.c - known-answer tests for every report_data binding (reference-calimero.md
 * §2): the reference's published transport and TLS vectors, its extra vectors (key binding
 * with and without an app hash, suffix nesting, the plain-concat admission candidate), and the
 * registration binding SHA-256("calimero.tee-attest.registration.v1").
 */
#include <string.h>

#include "mero/binding.h"
#include "mero/crypto.h"
#include "mero/encoding.h"
#include "harness.h"

static void b32(uint8_t *p, uint8_t v)
{
    memset(p, v, 32);
}

#define CHECK_HEX32(bytes, hex)                                                                    \
    do {                                                                                           \
        char h_[65];                                                                               \
        mero_hex_encode(h_, (bytes), 32);                                                          \
        CHECK_STR_EQ(h_, (hex));                                                                   \
    } while (0)

TEST(transport_binding_reference_vector)
{
    uint8_t a[32], b[32], out[32];
    b32(a, 0x11);
    b32(b, 0x22);
    mero_attest_transport_binding(out, a, b);
    CHECK_HEX32(out, "30274595433e8afc5d4035e30a2b599d93caf0d470867527f13dc6af92fa12a8");
}

TEST(tls_binding_reference_vector)
{
    uint8_t a[32], b[32], out[32];
    b32(a, 0x11);
    b32(b, 0x22);
    mero_attest_tls_binding(out, a, b);
    CHECK_HEX32(out, "38250e671ba2f113657c78387ce29f56e3a0416e983c3fe9efcc0d48c0b199ee");
}

TEST(key_binding_vectors)
{
    uint8_t pk[32], app[32], zero[32] = {0}, out[32], out2[32];
    b32(pk, 0x11);
    b32(app, 0x22);
    mero_attest_key_binding(out, NULL, pk);
    CHECK_HEX32(out, "6912957aa57e3fd48659b200fe3bd6fb918e3040260ea4a02e9f9cb362618891");
    mero_attest_key_binding(out2, zero, pk); /* None == 32 zero bytes */
    CHECK_MEM_EQ(out, out2, 32);
    mero_attest_key_binding(out, app, pk);
    CHECK_HEX32(out, "fbcf0c2b42404ca0b9807cf00a89eeae104d239a8b3eedbaae6ed128f96f9b22");
}

TEST(suffix_nesting_vectors)
{
    uint8_t inner[32], tls[32], tr[32], out[32], step[32];
    b32(inner, 0x22);
    b32(tls, 0x55);
    b32(tr, 0x44);
    CHECK_EQ(mero_attest_report_data_suffix(out, inner, tls, tr), 1);
    CHECK_HEX32(out, "8c742a4050dc73e6213a4997fc28d55156e76fe017ccc371fbee584f8908812b");
    mero_attest_tls_binding(step, inner, tls); /* the intermediate the reference names */
    CHECK_HEX32(step, "8071b44ed8199195433e7946bd4d0087f486325db9e10f894508d3b001659ad4");
    CHECK_EQ(mero_attest_report_data_suffix(out, NULL, NULL, tr), 1);
    CHECK_HEX32(out, "06ab937a4abddb1f41e7bebc4f522f5b4688854d25f5f4046c6e8d921a11b312");
    CHECK_EQ(mero_attest_report_data_suffix(out, NULL, tls, NULL), 1);
    CHECK_HEX32(out, "3c8fe3ad4f995362b56d91c1456767402fa1b84e575847507d3e7e74994d5c80");
    CHECK_EQ(mero_attest_report_data_suffix(out, inner, NULL, NULL), 1);
    CHECK_MEM_EQ(out, inner, 32);
    memset(out, 0xee, 32);
    CHECK_EQ(mero_attest_report_data_suffix(out, NULL, NULL, NULL), 0);
    CHECK_HEX32(out, "0000000000000000000000000000000000000000000000000000000000000000");
}

TEST(admission_binding_plain_concat)
{
    uint8_t ns[32], grp[32], member[32], acct[32], kem[32], dev[32], out[32], again[32];
    b32(ns, 0x01);
    b32(grp, 0x01);
    b32(member, 0x02);
    b32(acct, 0x03);
    b32(kem, 0x04);
    b32(dev, 0x05);
    mero_admission_binding(out, ns, grp, member, acct, kem, dev);
    CHECK_HEX32(out, "ade76f929fba8b887cfb6a064078861ed79c044a7135febe8538729062cb6246");
    /* every field matters: changing any one changes the binding */
    uint8_t *fields[] = {ns, grp, member, acct, kem, dev};
    for (size_t i = 0; i < 6; i++) {
        fields[i][31] ^= 1;
        mero_admission_binding(again, ns, grp, member, acct, kem, dev);
        fields[i][31] ^= 1;
        CHECK_MSG(memcmp(out, again, 32) != 0, "field %zu not bound", i);
    }
    /* and the order matters (account and device swapped) */
    mero_admission_binding(again, ns, grp, member, dev, kem, acct);
    CHECK(memcmp(out, again, 32) != 0);
}

TEST(registration_binding)
{
    uint8_t out[32], direct[32];
    mero_attest_registration_binding(out);
    mero_sha256(direct, "calimero.tee-attest.registration.v1", 35);
    CHECK_MEM_EQ(out, direct, 32);
    CHECK_HEX32(out, "8a792de43625275167c058a10895de9c9303c56fe644903541b5f6b8656fb6b8");
}

TEST(report_data_is_nonce_then_binding)
{
    uint8_t nonce[32], bind[32], rd[64];
    b32(nonce, 0xaa);
    b32(bind, 0xbb);
    mero_report_data(rd, nonce, bind);
    CHECK_MEM_EQ(rd, nonce, 32);
    CHECK_MEM_EQ(rd + 32, bind, 32);
}

MERO_TEST_MAIN(T(transport_binding_reference_vector), T(tls_binding_reference_vector),
               T(key_binding_vectors), T(suffix_nesting_vectors), T(admission_binding_plain_concat),
               T(registration_binding), T(report_data_is_nonce_then_binding))
