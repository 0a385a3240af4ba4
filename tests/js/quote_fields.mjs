// SPDX-License-Identifier: Apache-2.0
// quote_fields.mjs FILE - parse a TDX quote with @phala/dcap-qvl (an independent parser) and
// print the fields of the reference-calimero.md §4.2 JSON form that both parsers can produce,
// for tests/diff/quote_parse.sh to compare with `meroctl --json quote parse`.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Quote } = require('@phala/dcap-qvl');

const hex = (b) => Buffer.from(b).toString('hex');
const q = Quote.parse(readFileSync(process.argv[2]));
const kind = q.report.type ?? q.report.kind ?? Object.keys(q.report)[0];
const rep = q.report.report ?? q.report.data ?? Object.values(q.report)[1];
const td = rep.base ?? rep;
const body = {
  teeTcbSvn: hex(td.teeTcbSvn), mrseam: hex(td.mrSeam), mrsignerseam: hex(td.mrSignerSeam),
  seamattributes: hex(td.seamAttributes), tdattributes: hex(td.tdAttributes), xfam: hex(td.xfam),
  mrtd: hex(td.mrTd), mrconfigid: hex(td.mrConfigId), mrowner: hex(td.mrOwner),
  mrownerconfig: hex(td.mrOwnerConfig), rtmr0: hex(td.rtMr0), rtmr1: hex(td.rtMr1),
  rtmr2: hex(td.rtMr2), rtmr3: hex(td.rtMr3), reportdata: hex(td.reportData),
};
if (rep.base) {
  body.teeTcbSvn2 = hex(rep.teeTcbSvn2);
  body.mrservicetd = hex(rep.mrServiceTd);
}
const a = q.authData.data;
console.log(JSON.stringify({
  kind,
  header: {
    version: q.header.version, attestationKeyType: q.header.attestationKeyType,
    teeType: q.header.teeType, qeVendorId: hex(q.header.qeVendorId), userData: hex(q.header.userData),
  },
  body,
  signature: hex(a.ecdsaSignature),
  attestationKey: '04' + hex(a.ecdsaAttestationKey),
  qeReport: hex(a.qeReportData.qeReport),
  qeReportSignature: hex(a.qeReportData.qeReportSignature),
  qeAuthenticationData: hex(a.qeReportData.qeAuthData),
  certificationData: hex(q.rawCertChain()),
}));
