import { describe, expect, test } from "bun:test";
import { approvalOptions, decideApproval } from "../../../core/tools/approval-answer.ts";

const options = approvalOptions("Always allow write");

describe("decideApproval", () => {
  test("only an explicit allow option allows", () => {
    expect(decideApproval(options, { picked: "Allow" })).toEqual({ allow: true });
    expect(decideApproval(options, { picked: "allow" })).toEqual({ allow: true });
    expect(decideApproval(options, { picked: "Always allow write" })).toEqual({ allow: true, remember: true });
    expect(decideApproval(options, { picked: "allow_always" })).toEqual({ allow: true, remember: true });
    expect(decideApproval(options, { picked: "Allow", confirmed: true })).toEqual({ allow: true });
  });

  test("deny, unknown text, confirmed without an allow value, a contradiction, cancel, timeout and a gone host deny", () => {
    expect(decideApproval(options, { picked: "Deny", confirmed: true })).toMatchObject({ allow: false });
    expect(decideApproval(options, { picked: "reject" })).toMatchObject({ allow: false });
    expect(decideApproval(options, { picked: "yes" })).toEqual({ allow: false, reason: "yes" });
    expect(decideApproval(options, { picked: "allow_everything" })).toMatchObject({ allow: false });
    expect(decideApproval(options, { picked: "Allow", confirmed: false })).toMatchObject({ allow: false });
    expect(decideApproval(options, { picked: "  " })).toMatchObject({ allow: false });
    for (const unanswered of ["cancelled", "timed-out", "gone", "no-choice"] as const) expect(decideApproval(options, { unanswered })).toMatchObject({ allow: false });
  });
});
