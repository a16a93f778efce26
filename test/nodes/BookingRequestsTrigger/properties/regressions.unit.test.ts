/**
 * Programs kept from the property tests (shrunk by fast-check), as plain tests: each runs through the
 * trigger's real poll loop and is judged by the same oracle (test/support/triggerOracle.ts), plus what
 * the case is about. Add a failing program here with its name, as printed by fast-check.
 *
 * The first group are edges of the README's rules that the oracle had to learn (the trigger was right);
 * the others failed on the code of their day and pass since its fix (or the documented rule).
 */
import type { TriggerEvent } from "../../../../nodes/BookingRequestsTrigger/events";
import type { Program } from "../../../support/triggerProgram";
import { runProgram } from "../../../support/triggerProgram";
import { judge } from "../../../support/triggerOracle";
import type { Tag } from "../../../support/triggerOracle";

/** The rules of the default run (the known-bug tests add their own tag). */
const ALL: Tag[] = [
  "duplicate",
  "missing",
  "progress",
  "unexpected",
  "order",
  "payload",
  "recovered",
  "updates",
];

const settings = (
  overrides: Partial<Program["settings"]["trigger"]> = {},
  rest: Partial<Program["settings"]> = {},
): Program["settings"] => ({
  trigger: {
    events: {
      sessionAbandoned: true,
      sessionCompleted: true,
      requestCreated: true,
      requestUpdated: false,
    },
    abandonedAfterMs: 60_000,
    fireAgainIfReabandoned: false,
    onlyRecovered: false,
    skipIfBooked: false,
    customerCooldownMs: 0,
    onlyWithEmail: false,
    fingerprint: "fp-fuzz",
    ...overrides,
  },
  perPage: 2,
  includeRequest: false,
  drainBudget: null,
  ...rest,
});

async function judged(
  program: Program,
  tags: readonly Tag[] = ALL,
): Promise<{ violations: string[]; kept: TriggerEvent[] }> {
  const run = await runProgram(program);
  const violations = judge(program, run)
    .filter((violation) => tags.includes(violation.tag))
    .map((violation) => `${violation.tag}: ${violation.message}`);
  return {
    violations,
    kept: run.polls.filter((poll) => poll.kept).flatMap((poll) => poll.events),
  };
}

describe("regressions: edges of the rules", () => {
  test("a request created in the activation millisecond, after the first poll read: new (it was not visible then)", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: false,
          sessionCompleted: false,
          requestCreated: true,
          requestUpdated: false,
        },
      }),
      before: [
        { k: "start", c: 0, form: 0, contact: "both", n: 1 },
        { k: "tick", ms: 10_000 },
      ],
      steps: [
        { k: "complete", s: 0, from: "old" },
        { k: "start", c: 0, form: 0, contact: "both", n: 1 },
      ],
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    expect(kept.map((event) => event.event)).toEqual(["request.created"]);
  });

  test("Request Updated: a request created in the activation millisecond (after the first poll read) and changed is new: remembered silently, no unknown change", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: false,
          sessionCompleted: false,
          requestCreated: false,
          requestUpdated: true,
        },
        updates: {
          watchNewest: 1,
          fields: ["contact"],
          statusTo: [],
          leadStatusTo: [],
        },
      }),
      before: [],
      steps: [
        { k: "request", c: 0, form: 0, n: 1 },
        {
          k: "change",
          r: 0,
          change: { emailSpelling: true },
          updatedAt: "now",
        },
        { k: "save", s: 0 },
      ],
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    expect(kept).toEqual([]);
  });

  test('cooldown: drafts with only the e-mail and only the phone of one person are two customers (README "The same customer")', async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: true,
          sessionCompleted: false,
          requestCreated: false,
          requestUpdated: false,
        },
        customerCooldownMs: 3 * 86_400_000,
      }),
      before: [],
      steps: [
        { k: "start", c: 1, form: 0, contact: "email", n: 2 },
        { k: "start", c: 1, form: 0, contact: "phone", n: 1 },
        { k: "complete", s: 0, from: "old" },
      ],
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    expect(
      kept.filter((event) => event.event === "session.abandoned"),
    ).toHaveLength(2);
  });

  test("Skip Customers Who Booked: reminders delivered by a poll whose state is rolled back, then the customer books: not again", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: true,
          sessionCompleted: false,
          requestCreated: false,
          requestUpdated: false,
        },
        skipIfBooked: true,
      }),
      before: [{ k: "start", c: 0, form: 0, contact: "both", n: 3 }],
      steps: [
        {
          k: "poll",
          budget: null,
          churn: [{ at: 0, act: { k: "tick", ms: 66_001 } }],
        },
        { k: "complete", s: 0, from: "old" },
        { k: "rollback", back: 1 },
      ],
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    expect(kept.filter((event) => event.event === "session.abandoned")).toEqual(
      [],
    );
  });

  test("the poll's now is raised to the newest timestamp listed: a draft idle 1 ms short of the delay by the Date header may fire", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: true,
          sessionCompleted: false,
          requestCreated: false,
          requestUpdated: false,
        },
        skipIfBooked: true,
      }),
      before: [{ k: "start", c: 0, form: 0, contact: "none", n: 1 }],
      steps: [
        { k: "tick", ms: 59_999 },
        { k: "request", c: 0, form: 0, n: 2 },
        { k: "poll", budget: 2 },
        { k: "save", s: 0 },
        { k: "start", c: 0, form: 0, contact: "both", n: 1 },
      ],
    };
    expect((await judged(program)).violations).toEqual([]);
  });

  test("Request Updated: requests added while a poll reads push a changed one to a page it reads only next time", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: false,
          sessionCompleted: false,
          requestCreated: false,
          requestUpdated: true,
        },
        updates: {
          watchNewest: 13,
          fields: ["contact"],
          statusTo: [],
          leadStatusTo: [],
        },
      }),
      before: [
        { k: "book", c: 0, form: 0 },
        { k: "request", c: 0, form: 0, n: 2 },
        { k: "tick", ms: 10_000 },
      ],
      steps: [
        {
          k: "change",
          r: 17,
          change: { emailSpelling: true },
          updatedAt: "now",
        },
        {
          k: "poll",
          budget: null,
          churn: [{ at: 1, act: { k: "request", c: 0, form: 0, n: 2 } }],
        },
      ],
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    expect(
      kept
        .filter((event) => event.event === "request.updated")
        .map((event) => event.changedFields),
    ).toEqual([["email"]]);
  });

  test('Session Completed without Session Abandoned selected: a session the trigger saw idle counts as recovered from itself (README: "or saw this very session abandoned")', async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: false,
          sessionCompleted: true,
          requestCreated: false,
          requestUpdated: false,
        },
      }),
      before: [],
      steps: [
        { k: "start", c: 0, form: 0, contact: "both", n: 1 },
        { k: "jump", ms: 7_200_000 },
        { k: "poll", budget: 1 },
        { k: "complete", s: 0, from: "old" },
        { k: "poll", budget: null },
      ],
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    // Either answer is allowed by the oracle; today the trigger says recovered.
    expect(
      kept
        .filter((event) => event.event === "session.completed")
        .map((event) => event.recovered),
    ).toEqual([true]);
  });

  test("requests stamped ahead of the API clock (several in one poll) are reported at the poll's now, never later than their created_at", async () => {
    const program: Program = {
      settings: settings(),
      before: [],
      steps: [
        { k: "request", c: 0, form: 0, n: 4 },
        {
          k: "poll",
          budget: 5,
          churn: [{ at: 1, act: { k: "request", c: 0, form: 0, n: 4 } }],
        },
      ],
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    // (the first four are stamped in the activation's millisecond, after its read: new)
    expect(
      kept.filter((event) => event.event === "request.created").length,
    ).toBe(8);
  });

  test("Skip Customers Who Booked: a booking after the event time (a + delay), before a poll cut by its budget judges the draft, may not count yet", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: true,
          sessionCompleted: false,
          requestCreated: false,
          requestUpdated: false,
        },
        skipIfBooked: true,
      }),
      before: [{ k: "start", c: 1, form: 0, contact: "both", n: 1 }],
      steps: [
        { k: "tick", ms: 60_000 },
        { k: "request", c: 0, form: 0, n: 4 },
        { k: "request", c: 1, form: 0, n: 1 },
        { k: "request", c: 0, form: 0, n: 2 },
        { k: "start", c: 0, form: 0, contact: "both", n: 1 },
        { k: "complete", s: 7, from: "old" },
        { k: "poll", budget: 3 },
      ],
    };
    expect((await judged(program)).violations).toEqual([]);
  });

  test("recovered: a booking without a draft made while the poll reads, after it read the request list, is matched to its customer (the completion waits for the next read of the list)", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: true,
          sessionCompleted: true,
          requestCreated: false,
          requestUpdated: false,
        },
        skipIfBooked: true,
      }),
      before: [{ k: "start", c: 2, form: 0, contact: "both", n: 1 }],
      steps: [
        { k: "tick", ms: 60_000 },
        {
          k: "poll",
          budget: null,
          churn: [{ at: 1, act: { k: "book", c: 2, form: 0 } }],
        },
        { k: "tick", ms: 0 },
      ],
    };
    expect((await judged(program)).violations).toEqual([]);
  });

  test("minutes_to_recover of a session saved again after it was reported abandoned: from either activity", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: true,
          sessionCompleted: true,
          requestCreated: false,
          requestUpdated: false,
        },
      }),
      before: [{ k: "start", c: 0, form: 0, contact: "both", n: 1 }],
      steps: [
        { k: "jump", ms: 45 * 86_400_000 },
        { k: "poll", budget: 1 },
        { k: "save", s: 0 },
        { k: "jump", ms: 7_200_000 },
        { k: "poll", budget: null },
        { k: "complete", s: 0, from: "old" },
        { k: "poll", budget: 1 },
      ],
    };
    expect((await judged(program)).violations).toEqual([]);
  });

  test("without Fire Again If Reabandoned, a session reported again 45 days after it was seen abandoned (README: seen more than 30 days ago is forgotten)", async () => {
    const program: Program = {
      settings: settings(
        {
          events: {
            sessionAbandoned: true,
            sessionCompleted: false,
            requestCreated: true,
            requestUpdated: false,
          },
        },
        { drainBudget: 20 },
      ),
      before: [{ k: "start", c: 0, form: 0, contact: "both", n: 3 }],
      steps: [
        {
          k: "poll",
          budget: 1,
          churn: [{ at: 0, act: { k: "request", c: 0, form: 0, n: 1 } }],
        },
        { k: "start", c: 0, form: 0, contact: "both", n: 1 },
        {
          k: "poll",
          budget: null,
          churn: [
            { at: 0, act: { k: "tick", ms: 60_000 } },
            {
              at: 0,
              act: { k: "start", c: 0, form: 0, contact: "both", n: 1 },
            },
          ],
        },
        { k: "save", s: 0 },
        { k: "save", s: 2 },
        { k: "save", s: 1 },
        { k: "start", c: 0, form: 0, contact: "both", n: 1 },
        { k: "request", c: 0, form: 0, n: 2 },
        {
          k: "poll",
          budget: 6,
          churn: [
            {
              at: 0,
              act: { k: "start", c: 0, form: 0, contact: "both", n: 1 },
            },
          ],
        },
        { k: "jump", ms: 45 * 86_400_000 },
        { k: "save", s: 0 },
      ],
    };
    expect((await judged(program)).violations).toEqual([]);
  });
});

describe("regressions: found by the property tests, fixed or documented", () => {
  test("minutes_to_recover is null when a draft without e-mail or phone, reported abandoned, completes: recovered from itself (README: no customer to keep its time for)", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: true,
          sessionCompleted: true,
          requestCreated: false,
          requestUpdated: false,
        },
      }),
      before: [{ k: "start", c: 0, form: 0, contact: "none", n: 1 }],
      steps: [
        { k: "tick", ms: 67_000 },
        { k: "poll", budget: null },
        { k: "tick", ms: 60_000 },
        { k: "complete", s: 0, from: "old" },
        { k: "poll", budget: null },
      ],
    };
    const { violations, kept } = await judged(program, [...ALL, "minutes"]);
    const completed = kept.find((event) => event.event === "session.completed");
    expect({
      recovered: completed?.recovered,
      from: completed?.recoveredFromSessionId,
      minutes: completed?.minutesToRecover,
    }).toEqual({
      recovered: true,
      from: completed?.session?.id,
      minutes: null,
    });
    expect(violations).toEqual([]);
  });

  test("a request created just after the poll read the request list, while its next read comes more than 5 s later, is reported (fixed: the late-commit margin counts from the list read, not the poll end)", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: false,
          sessionCompleted: true,
          requestCreated: true,
          requestUpdated: false,
        },
      }),
      before: [],
      steps: [
        { k: "tick", ms: 10_000 },
        {
          k: "poll",
          budget: 2,
          churn: [
            { at: 1, act: { k: "request", c: 0, form: 0, n: 1 } },
            { at: 1, act: { k: "tick", ms: 10_000 } },
          ],
        },
      ],
    };
    const { violations, kept } = await judged(program, [...ALL, "slowPoll"]);
    expect(
      kept.filter((event) => event.event === "request.created"),
    ).toHaveLength(1);
    expect(violations).toEqual([]);
  });
});

describe("regressions: catch-ups after weeks off judge the memories by event time (fixed)", () => {
  test("cooldown: drafts of one customer judged in the polls of a catch-up 45 days later (trigger off meanwhile) get one reminder: the reminders are kept by event time (before: forgotten at once, one each)", async () => {
    const program: Program = {
      // as fast-check shrank it (npm run test:fuzz, seed 331309619)
      settings: settings(
        {
          events: {
            sessionAbandoned: true,
            sessionCompleted: true,
            requestCreated: false,
            requestUpdated: true,
          },
          customerCooldownMs: 3 * 86_400_000,
          updates: {
            watchNewest: 500,
            fields: ["completed_at"],
            statusTo: [],
            leadStatusTo: [],
          },
        },
        { includeRequest: true, drainBudget: 12 },
      ),
      before: [
        { k: "start", c: 0, form: 0, contact: "both", n: 2 },
        { k: "start", c: 0, form: 0, contact: "both", n: 3 },
        { k: "start", c: 0, form: 0, contact: "both", n: 1 },
        { k: "book", c: 0, form: 0 },
        { k: "start", c: 0, form: 0, contact: "both", n: 1 },
        { k: "start", c: 0, form: 0, contact: "both", n: 2 },
      ],
      steps: [
        { k: "book", c: 0, form: 0 },
        { k: "jump", ms: 45 * 86_400_000 },
        { k: "request", c: 0, form: 0, n: 2 },
        { k: "complete", s: 0, from: "old" },
      ],
    };
    const { violations } = await judged(program, [...ALL, "staleCooldown"]);
    expect(violations).toEqual([]);
  });

  test("Only Recovered: a completion 2 h after the reminder, judged only in a catch-up 31 days later, is kept (README: at most 30 days before the completion; before: left out)", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: true,
          sessionCompleted: true,
          requestCreated: false,
          requestUpdated: false,
        },
        onlyRecovered: true,
      }),
      before: [],
      steps: [
        { k: "start", c: 0, form: 0, contact: "both", n: 1 },
        { k: "jump", ms: 7_200_000 },
        { k: "poll", budget: 1, churn: [] },
        { k: "jump", ms: 7_200_000 },
        { k: "start", c: 0, form: 0, contact: "both", n: 1 },
        {
          k: "poll",
          budget: 1,
          churn: [{ at: 0, act: { k: "book", c: 0, form: 0 } }],
        },
        {
          k: "poll",
          budget: 1,
          churn: [{ at: 0, act: { k: "complete", s: 0, from: "old" } }],
        },
        { k: "jump", ms: 31 * 86_400_000 },
        { k: "poll", budget: 1 },
        { k: "start", c: 0, form: 0, contact: "both", n: 1 },
      ],
    };
    const { violations } = await judged(program, [...ALL, "staleSeen"]);
    expect(violations).toEqual([]);
  });

  test("a session reported abandoned 45 days before, with no poll in between (trigger off for a month), completes: not recovered, left out by Only Recovered (README: seen more than 30 days ago; before: recovered from itself)", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: true,
          sessionCompleted: true,
          requestCreated: false,
          requestUpdated: false,
        },
        onlyRecovered: true,
      }),
      before: [{ k: "start", c: 0, form: 0, contact: "both", n: 1 }],
      steps: [
        { k: "jump", ms: 7_200_000 },
        { k: "poll", budget: null },
        { k: "jump", ms: 45 * 86_400_000 },
        { k: "complete", s: 0, from: "old" },
        { k: "poll", budget: null },
      ],
    };
    const { violations, kept } = await judged(program, [
      ...ALL,
      "minutes",
      "staleSeen",
    ]);
    // Only Recovered: the completion must not be reported at all.
    expect(kept.filter((event) => event.event === "session.completed")).toEqual(
      [],
    );
    expect(violations).toEqual([]);
  });
});

describe("regressions: found by fresh seeds while the trigger was rebuilt (fixed)", () => {
  test("minutes_to_recover with Fire Again If Reabandoned: from the latest report of the session (the oracle took its first)", async () => {
    const program: Program = {
      "settings": {
        "trigger": {
          "events": {
            "sessionAbandoned": true,
            "sessionCompleted": true,
            "requestCreated": false,
            "requestUpdated": false
          },
          "abandonedAfterMs": 60000,
          "fireAgainIfReabandoned": true,
          "onlyRecovered": false,
          "skipIfBooked": false,
          "customerCooldownMs": 0,
          "onlyWithEmail": false,
          "fingerprint": "fp-fuzz"
        },
        "perPage": 2,
        "includeRequest": false,
        "drainBudget": null
      },
      "before": [
        {
          "k": "start",
          "c": 0,
          "form": 0,
          "contact": "both",
          "n": 3,
          "spelling": false
        }
      ],
      "steps": [
        {
          "k": "jump",
          "ms": 7200000
        },
        {
          "k": "poll",
          "budget": null
        },
        {
          "k": "save",
          "s": 2,
          "addEmail": false
        },
        {
          "k": "jump",
          "ms": 7200000
        },
        {
          "k": "poll",
          "budget": 1,
          "churn": [
            {
              "at": 0,
              "act": {
                "k": "complete",
                "s": 0,
                "from": "old"
              }
            }
          ]
        },
        {
          "k": "complete",
          "s": 0,
          "from": "old"
        },
        {
          "k": "poll",
          "budget": 2
        },
        {
          "k": "save",
          "s": 0,
          "addEmail": false
        },
        {
          "k": "complete",
          "s": 0,
          "from": "old"
        },
        {
          "k": "tick",
          "ms": 0
        }
      ]
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    const recovered = kept.filter((event) => event.event === "session.completed" && event.recoveredFromSessionId === event.session?.id);
    expect(recovered.map((event) => event.minutesToRecover)).toEqual([120]);
  });

  test("Only Recovered: a booking without a draft made while a poll reads, after it read the request list, of a customer reminded before: reported, recovered (fixed: the completion waits for the next read of the list; before: left out)", async () => {
    const program: Program = {
      "settings": {
        "trigger": {
          "events": {
            "sessionAbandoned": true,
            "sessionCompleted": true,
            "requestCreated": true,
            "requestUpdated": false
          },
          "abandonedAfterMs": 60000,
          "fireAgainIfReabandoned": false,
          "onlyRecovered": true,
          "skipIfBooked": false,
          "customerCooldownMs": 0,
          "onlyWithEmail": false,
          "fingerprint": "fp-fuzz"
        },
        "perPage": 2,
        "includeRequest": false,
        "drainBudget": null
      },
      "before": [],
      "steps": [
        {
          "k": "poll",
          "budget": 1,
          "churn": [
            {
              "at": 0,
              "act": {
                "k": "start",
                "c": 5,
                "form": 0,
                "contact": "both",
                "n": 1,
                "spelling": false
              }
            }
          ]
        },
        {
          "k": "poll",
          "budget": 1,
          "churn": [
            {
              "at": 0,
              "act": {
                "k": "tick",
                "ms": 59994
              }
            }
          ]
        },
        {
          "k": "start",
          "c": 0,
          "form": 0,
          "contact": "both",
          "n": 1,
          "spelling": false
        },
        {
          "k": "start",
          "c": 0,
          "form": 0,
          "contact": "both",
          "n": 1,
          "spelling": false
        },
        {
          "k": "start",
          "c": 0,
          "form": 0,
          "contact": "both",
          "n": 1,
          "spelling": false
        },
        {
          "k": "save",
          "s": 1,
          "addEmail": false
        },
        {
          "k": "request",
          "c": 0,
          "form": 0,
          "n": 1,
          "sameMs": false
        },
        {
          "k": "save",
          "s": 1,
          "addEmail": false
        },
        {
          "k": "poll",
          "budget": 1,
          "churn": [
            {
              "at": 0,
              "act": {
                "k": "complete",
                "s": 0,
                "from": "new"
              }
            }
          ]
        },
        {
          "k": "poll",
          "budget": 3
        },
        {
          "k": "jump",
          "ms": 7200000
        },
        {
          "k": "poll",
          "budget": null,
          "churn": [
            {
              "at": 1,
              "act": {
                "k": "book",
                "c": 5,
                "form": 0
              }
            }
          ]
        },
        {
          "k": "poll",
          "budget": 1
        }
      ]
    };
    const { violations, kept } = await judged(program, [...ALL, "missing"]);
    expect(violations).toEqual([]);
    expect(kept.filter((event) => event.event === "session.completed").map((event) => event.recovered)).toEqual([true]);
  });

  test("a poll during which more rows with one timestamp arrive than its estimate placed reads on with the calls it has left (fixed: it came back cut, and a draft saved again before the next poll lost its idle period)", async () => {
    const program: Program = {
      "settings": {
        "trigger": {
          "events": {
            "sessionAbandoned": true,
            "sessionCompleted": true,
            "requestCreated": true,
            "requestUpdated": false
          },
          "abandonedAfterMs": 60000,
          "fireAgainIfReabandoned": false,
          "onlyRecovered": false,
          "skipIfBooked": false,
          "customerCooldownMs": 0,
          "onlyWithEmail": false,
          "fingerprint": "fp-fuzz"
        },
        "perPage": 2,
        "includeRequest": false,
        "drainBudget": null
      },
      "before": [
        {
          "k": "start",
          "c": 0,
          "form": 0,
          "contact": "both",
          "n": 3
        }
      ],
      "steps": [
        {
          "k": "request",
          "c": 1,
          "form": 0,
          "n": 3,
          "sameMs": true
        },
        {
          "k": "jump",
          "ms": 7200000
        },
        {
          "k": "poll",
          "budget": null,
          "churn": [
            {
              "at": 1,
              "act": {
                "k": "request",
                "c": 2,
                "form": 0,
                "n": 4,
                "sameMs": true
              }
            }
          ]
        },
        {
          "k": "save",
          "s": 0,
          "addEmail": false
        },
        {
          "k": "poll",
          "budget": null
        }
      ]
    };
    const { violations, kept } = await judged(program, [...ALL, "churnDeferral"]);
    expect(violations).toEqual([]);
    expect(kept.filter((event) => event.event === "session.abandoned")).toHaveLength(3);
  });

  test("requests created while a poll reads, after its read of page 1 (not ahead of the clock), come in the next poll at their created_at (fixed: they came at once with an event time before their created_at)", async () => {
    const program: Program = {
      "settings": {
        "trigger": {
          "events": {
            "sessionAbandoned": true,
            "sessionCompleted": true,
            "requestCreated": true,
            "requestUpdated": false
          },
          "abandonedAfterMs": 60000,
          "fireAgainIfReabandoned": false,
          "onlyRecovered": false,
          "skipIfBooked": false,
          "customerCooldownMs": 0,
          "onlyWithEmail": false,
          "fingerprint": "fp-fuzz"
        },
        "perPage": 2,
        "includeRequest": false,
        "drainBudget": null
      },
      "before": [],
      "steps": [
        {
          "k": "tick",
          "ms": 10000
        },
        {
          "k": "request",
          "c": 0,
          "form": 0,
          "n": 1,
          "sameMs": false
        },
        {
          "k": "request",
          "c": 0,
          "form": 0,
          "n": 1,
          "sameMs": false
        },
        {
          "k": "request",
          "c": 0,
          "form": 0,
          "n": 1,
          "sameMs": false
        },
        {
          "k": "book",
          "c": 0,
          "form": 0
        },
        {
          "k": "start",
          "c": 0,
          "form": 0,
          "contact": "both",
          "n": 3,
          "spelling": false
        },
        {
          "k": "poll",
          "budget": null,
          "churn": [
            {
              "at": 0,
              "act": {
                "k": "complete",
                "s": 0,
                "from": "old"
              }
            }
          ]
        },
        {
          "k": "start",
          "c": 0,
          "form": 0,
          "contact": "both",
          "n": 1,
          "spelling": false
        },
        {
          "k": "complete",
          "s": 0,
          "from": "old"
        },
        {
          "k": "tick",
          "ms": 10000
        },
        {
          "k": "poll",
          "budget": 9,
          "churn": [
            {
              "at": 1,
              "act": {
                "k": "request",
                "c": 0,
                "form": 0,
                "n": 4,
                "sameMs": false
              }
            },
            {
              "at": 0,
              "act": {
                "k": "complete",
                "s": 0,
                "from": "old"
              }
            }
          ]
        },
        {
          "k": "save",
          "s": 0,
          "addEmail": false
        }
      ]
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    for (const event of kept.filter((entry) => entry.event === "request.created")) expect(event.at).toBe(Date.parse(event.request!.created_at));
  });
});

describe("regressions: rows committed late just after the first poll (fixed: the first poll reads and remembers the edge)", () => {
  // Shrunk by fast-check (exactlyOnce, seed 102, once the world committed writes late): a booking made
  // right after activation, stamped in its millisecond. Before: the first poll started the windows at its
  // now, so the booking's request was history and never reported.
  test("exactly once › busy polls: small budgets, activity between page reads, dropped saves, rolled-back states (with seed=102)", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: false,
          sessionCompleted: false,
          requestCreated: true,
          requestUpdated: false,
        },
      }),
      before: [],
      steps: [
        { k: "book", c: 0, form: 0 },
        { k: "start", c: 0, form: 0, contact: "both", n: 1, spelling: false },
      ],
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    expect(kept.map((event) => event.event)).toEqual(["request.created"]);
  });

  test("a booking committed 3 s late, 1 s after activation (stamped 2 s before it), and rows of the edge beyond page 1 at activation: the booking is reported, the edge is not", async () => {
    const program: Program = {
      settings: settings({}, { perPage: 2 }),
      // Five requests and drafts in the last 5 s before activation: three pages of each list.
      before: [
        { k: "tick", ms: 60_000 },
        { k: "request", c: 1, form: 0, n: 5 },
        { k: "start", c: 2, form: 0, contact: "both", n: 5 },
        { k: "tick", ms: 3_000 },
      ],
      steps: [
        { k: "tick", ms: 1_000 },
        { k: "book", c: 0, form: 0, late: 3_000, lateRequest: 3_000 },
        { k: "tick", ms: 60_000 },
        { k: "poll", budget: null },
      ],
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    expect(kept.filter((event) => event.event !== "session.abandoned").map((event) => event.event)).toEqual(["session.completed", "request.created"]);
  });

  // Shrunk by fast-check (mustNotFire, seed 756008801): a request stamped 4,999 ms before the world's
  // clock, but after a row stamped 1 ms past it (writes in one millisecond are stamped past the clock),
  // which the first poll had read: 5,000 ms before that poll's read, on its edge floor. The trigger was
  // right (rows up to 5 s late); the world measured lateness from its clock, not from the newest stamp
  // it had given (test/support/triggerWorld.ts `stamp`, fixed there).
  test("nothing fires that must not › several items in one millisecond, tie groups larger than a page (with seed=756008801)", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: false,
          sessionCompleted: false,
          requestCreated: true,
          requestUpdated: false,
        },
      }),
      before: [
        { k: "start", c: 0, form: 0, contact: "both", n: 1, spelling: false },
        { k: "complete", s: 0, from: "old" },
      ],
      steps: [
        { k: "request", c: 0, form: 0, n: 1, sameMs: true, late: 4999 },
        { k: "change", r: 0, change: { first_name: "Ada" }, updatedAt: "now" },
      ],
    };
    const { violations } = await judged(program);
    expect(violations).toEqual([]);
  });

  // Shrunk by fast-check (exactlyOnce, seed 756008699): the same edge, a booking's request 4,996 ms late
  // after writes stamped past the world's clock; fixed in the world likewise.
  test("exactly once › any program, any options: once per state, none missing after quiet polls (with seed=756008699)", async () => {
    const program: Program = {
      settings: settings({
        events: {
          sessionAbandoned: false,
          sessionCompleted: false,
          requestCreated: true,
          requestUpdated: false,
        },
      }),
      before: [],
      steps: [
        { k: "start", c: 0, form: 0, contact: "both", n: 1, spelling: false },
        { k: "save", s: 0, addEmail: false },
        { k: "start", c: 0, form: 0, contact: "both", n: 1, spelling: false },
        { k: "complete", s: 0, from: "old" },
        { k: "complete", s: 0, from: "old" },
        { k: "poll", budget: 1 },
        { k: "book", c: 0, form: 0, lateRequest: 4996 },
        { k: "poll", budget: null },
        { k: "rollback", back: 1 },
      ],
    };
    const { violations } = await judged(program);
    expect(violations).toEqual([]);
  });
});

// Shrunk by fast-check (exactlyOnce, FUZZ_SEED=756008598: "busy polls", seed 756008700): request 0c,
// created in the activation's second, read by a kept poll at rank 9 while rows committed up to 558 ms
// late landed below it; its change ("Grace", the e-mail's other spelling) was found only by polls whose
// saves n8n dropped. Before: with the list at 26, the lowest watched rank was 11 and its record, still
// at rank 9 as read, was forgotten though the request was 11th from the end (the 15th newest); read
// again, it was remembered silently as new, so the change was never reported. A record read within
// EDGE_WINDOW_MS of the server's clock is now kept until read again (or RANK_SLACK below the range).
describe("regressions: rows committed late below a watched request (fixed: its record is not forgotten by its rank as read)", () => {
  test("exactly once › busy polls: small budgets, activity between page reads, dropped saves, rolled-back states (with seed=756008700)", async () => {
    const program: Program = {
      settings: settings(
        {
          events: { sessionAbandoned: false, sessionCompleted: true, requestCreated: true, requestUpdated: true },
          updates: { watchNewest: 15, fields: ["contact"], statusTo: [], leadStatusTo: [] },
        },
        { drainBudget: 12 },
      ),
      before: [],
      steps: [
        {"k": "request", "c": 0, "form": 0, "n": 2, "sameMs": false},
        {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 2, "spelling": false},
        {"k": "poll", "budget": 1, "churn": [{"at": 0, "act": {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 1, "spelling": false}}]},
        {"k": "complete", "s": 0, "from": "old"},
        {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 1, "spelling": false},
        {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 1, "spelling": false},
        {"k": "poll", "budget": 1, "churn": [{"at": 0, "act": {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 1, "spelling": false}}, {"at": 0, "act": {"k": "request", "c": 0, "form": 0, "n": 4, "sameMs": false}}, {"at": 0, "act": {"k": "book", "c": 0, "form": 0}}]},
        {"k": "poll", "budget": null, "churn": [{"at": 0, "act": {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 2, "spelling": false}}, {"at": 0, "act": {"k": "complete", "s": 0, "from": "old"}}, {"at": 0, "act": {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 1, "spelling": false, "late": 559}}]},
        {"k": "poll", "budget": null, "churn": [{"at": 0, "act": {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 1, "spelling": false}}, {"at": 0, "act": {"k": "request", "c": 2, "form": 0, "n": 1, "sameMs": false}}, {"at": 2, "act": {"k": "request", "c": 0, "form": 0, "n": 4, "sameMs": true, "late": 558}}]},
        {"k": "poll", "budget": 10, "save": "keep", "churn": [{"at": 1, "act": {"k": "save", "s": 20, "addEmail": true}}, {"at": 5, "act": {"k": "save", "s": 6, "addEmail": true}}, {"at": 0, "act": {"k": "start", "c": 3, "form": 0, "contact": "phone", "n": 1, "spelling": true}}, {"at": 0, "act": {"k": "request", "c": 5, "form": 0, "n": 1, "sameMs": false, "late": 459}}, {"at": 3, "act": {"k": "tick", "ms": 192}}]},
        {"k": "change", "r": 24, "change": {"status": "complete", "notes": "call back", "emailSpelling": true}, "updatedAt": "keep"},
        {"k": "complete", "s": 19, "from": "old", "late": 345, "lateRequest": 1123},
        {"k": "request", "c": 2, "form": 0, "n": 1, "sameMs": true},
        {"k": "save", "s": 3, "addEmail": true},
        {"k": "tick", "ms": 712354},
        {"k": "poll", "budget": null, "save": "drop", "churn": [{"at": 6, "act": {"k": "book", "c": 2, "form": 1}}, {"at": 6, "act": {"k": "start", "c": 0, "form": 0, "contact": "phone", "n": 2, "spelling": true, "late": 2986}}, {"at": 4, "act": {"k": "change", "r": 22, "change": {"status": "cancelled", "lead_status": "Won ", "completed": false, "first_name": "Grace", "emailSpelling": true}, "updatedAt": "now"}}, {"at": 0, "act": {"k": "change", "r": 28, "change": {"status": "cancelled", "lead_status": "new", "notes": "paid", "completed": false, "emailSpelling": true}, "updatedAt": "now"}}, {"at": 5, "act": {"k": "complete", "s": 19, "from": "new", "late": 801}}]},
        {"k": "jump", "ms": 86400000},
        {"k": "tick", "ms": 333},
        {"k": "poll", "budget": 2, "save": "keep", "churn": []},
        {"k": "change", "r": 10, "change": {"status": "cancelled", "lead_status": "Won ", "notes": null, "completed": true, "first_name": "Ada", "emailSpelling": true}, "updatedAt": "now"},
        {"k": "poll", "budget": 4, "save": "drop", "churn": []},
        {"k": "save", "s": 5, "addEmail": true},
        {"k": "poll", "budget": 4, "save": "keep", "churn": [{"at": 1, "act": {"k": "start", "c": 4, "form": 1, "contact": "both", "n": 3, "spelling": false}}]},
        {"k": "poll", "budget": null, "save": "drop", "churn": [{"at": 5, "act": {"k": "save", "s": 2, "addEmail": false, "late": 3337}}, {"at": 5, "act": {"k": "complete", "s": 8, "from": "new"}}, {"at": 2, "act": {"k": "tick", "ms": 121356}}]},
        {"k": "request", "c": 4, "form": 0, "n": 1, "sameMs": false, "late": 1898},
        {"k": "poll", "budget": 8, "save": "keep", "churn": [{"at": 5, "act": {"k": "complete", "s": 5, "from": "old", "late": 237, "lateRequest": 2297}}]},
        {"k": "request", "c": 1, "form": 1, "n": 4, "sameMs": false, "late": 3059},
      ],
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    expect(
      kept
        .filter((event) => event.event === "request.updated")
        .map((event) => [event.request?.first_name, event.changedFields]),
    ).toEqual([["Grace", ["first_name", "email"]]]);
  });
});

describe("regressions: a completion committed late after its customer's reminder (fixed: it counts as recovered, with minutes_to_recover)", () => {
  test("event payloads › Request Updated (with seed=563937216): a booking stamped up to EDGE_WINDOW_MS before the reminder's time, visible after it went out", async () => {
    const program: Program = {
      settings: settings({
        events: { sessionAbandoned: true, sessionCompleted: true, requestCreated: false, requestUpdated: true },
        updates: { watchNewest: 13, fields: ["contact"], statusTo: [], leadStatusTo: [] },
      }),
      before: [],
      steps: [
        {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 2, "spelling": false, "late": 3033},
        {"k": "tick", "ms": 131},
        {"k": "tick", "ms": 53997},
        {"k": "tick", "ms": 2836},
        {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 1, "spelling": false},
        {"k": "poll", "budget": 1, "churn": [{"at": 0, "act": {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 1, "spelling": false}}, {"at": 0, "act": {"k": "save", "s": 0, "addEmail": false}}]},
        {"k": "complete", "s": 0, "from": "old"},
        {"k": "poll", "budget": 3},
        {"k": "complete", "s": 1, "from": "old", "late": 2001},
        {"k": "jump", "ms": 7200000},
      ],
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    expect(kept.filter((event) => event.event === "session.completed" && event.recovered).length).toBeGreaterThanOrEqual(1);
  });
});

// Shrunk by fast-check (changed_fields, FUZZ_SEED=563936913, FUZZ_RUNS=20000): in the unlimited poll 5
// the completions window (at the top of the session list, a search bound `deeper` kept from poll 4) got
// an even share of 3 pages: page 1-3 from the top, a search that found the list's end on page 5, then
// its oldest part (pages 4-5). A run not from page 1 covers only up to its first page's top (14:00:00.000),
// and the extension pass only went on with an open run from page 1, so the window stayed incomplete with
// the budget unspent: the frontier stopped at 14:00:00.000 for every event, the request window did not
// pass request 0b (14:00:00.003) and Request Updated did not remember it; its notes, changed before
// poll 6, were then first read (remembered silently). A window at the top left so is now read again
// from page 1 down to its stop when the budget affords it.
describe("regressions: a window at the top read only by its oldest part in an unlimited poll (fixed: read again from page 1)", () => {
  test("event payloads › changed_fields (FUZZ_SEED=563936913): internal_notes changed between polls 5 and 6 is reported", async () => {
    const program: Program = {
      settings: settings({
        events: { sessionAbandoned: false, sessionCompleted: true, requestCreated: false, requestUpdated: true },
        updates: { watchNewest: 8, fields: ["internal_notes"], statusTo: [], leadStatusTo: [] },
      }),
      before: [],
      steps: [
        {"k": "book", "c": 0, "form": 0},
        {"k": "poll", "budget": 1, "churn": [{"at": 0, "act": {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 2, "spelling": false}}]},
        {"k": "jump", "ms": 7200000},
        {"k": "poll", "budget": null, "churn": [{"at": 0, "act": {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 1, "spelling": false, "late": 2001}}, {"at": 0, "act": {"k": "book", "c": 0, "form": 0}}]},
        {"k": "poll", "budget": 1, "churn": [{"at": 0, "act": {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 1, "spelling": false}}, {"at": 0, "act": {"k": "start", "c": 0, "form": 0, "contact": "both", "n": 2, "spelling": false}}, {"at": 0, "act": {"k": "complete", "s": 0, "from": "old"}}]},
        {"k": "tick", "ms": 10000},
        {"k": "change", "r": 0, "change": {"notes": "call back"}, "updatedAt": "now"},
        {"k": "request", "c": 0, "form": 0, "n": 4, "sameMs": false},
        {"k": "book", "c": 0, "form": 0},
        {"k": "complete", "s": 0, "from": "old"},
        {"k": "complete", "s": 0, "from": "old"},
        {"k": "poll", "budget": 5},
        {"k": "poll", "budget": null},
        {"k": "change", "r": 7, "change": {"notes": null}, "updatedAt": "now"},
        {"k": "save", "s": 0, "addEmail": false},
      ],
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    expect(
      kept
        .filter((event) => event.event === "request.updated")
        .map((event) => [event.request?.id, event.changedFields]),
    ).toEqual([["00000000-0000-4000-8000-00000000000b", ["internal_notes"]]]);
  });
});

describe("regressions: a session reported again after its day expired (fixed: it is remembered from the newest day it was seen)", () => {
  test("abandoned, reported again 31 days later, then not a third time a minute after (fixed seed 201 of 'nothing fires that must not', found while the fuzz settings were built from the registry)", async () => {
    // Seen on day d0; reported again on d0 + 31 (allowed: the memory of it had expired). The seen memory
    // kept the code under d0 and the prune after the poll dropped that day: the report just made was
    // forgotten, and the next save a minute later was reported a third time (Fire Again is off).
    const program: Program = {
      settings: settings({
        events: { sessionAbandoned: true, sessionCompleted: false, requestCreated: false, requestUpdated: false },
      }),
      before: [{ k: "start", c: 0, form: 0, contact: "both", n: 1, spelling: false }],
      steps: [
        { k: "tick", ms: 60000 },
        { k: "poll", budget: null },
        { k: "jump", ms: 2678400000 },
        { k: "save", s: 0, addEmail: false },
        { k: "tick", ms: 57334 },
        { k: "tick", ms: 2666 },
        { k: "poll", budget: null },
        { k: "save", s: 0, addEmail: false },
      ],
    };
    const { violations, kept } = await judged(program);
    expect(violations).toEqual([]);
    expect(kept.filter((event) => event.event === "session.abandoned")).toHaveLength(2);
  });
});
