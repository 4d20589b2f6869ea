// What was reviewed, state by state, for the consumer-protection rules of retail choice: the offer
// rules market-rules.ts enforces, the enrollment rules the territories feed carries (rescission
// windows), and where no rule that changes what we show was found. docs/partners.md lists it.
import { MARKET_RULES } from './market-rules.js';

interface StateReview {
  state: string;
  /** Ids of the offer rules enforced for the state (market-rules.ts). */
  offerRules: string[];
  /** Rules on enrolment rather than on offers, with their citation; the territories feed carries them. */
  enrolment: string | null;
  /** What the review found beyond those, or "none found". */
  finding: string;
}

const rulesOf = (state: string) => MARKET_RULES.filter((r) => r.state === state).map((r) => r.id);

const NONE = 'none found';

export const STATE_REVIEWS: readonly StateReview[] = Object.freeze(
  (
    [
      ['TX', null, NONE],
      ['IL', "Rescission within 10 calendar days of the utility's confirmation (83 Ill. Adm. Code 412.150)", NONE],
      ['CT', null, NONE],
      ['MD', null, NONE],
      ['NY', null, NONE],
      [
        'OH',
        "Rescission within 7 calendar days of the utility's confirmation notice, for residential and small commercial enrolments " +
          '(Ohio Adm. Code 4901:1-21-06(D))',
        NONE,
      ],
      ['PA', 'Accelerated switching in 3 business days (52 Pa. Code §57.174)', NONE],
      ['NJ', null, NONE],
      ['DE', null, NONE],
      ['DC', null, NONE],
      ['ME', null, NONE],
      ['NH', null, NONE],
      ['MA', null, NONE],
      ['RI', null, NONE],
      ['MI', "Retail open access capped at 10% of each utility's load (MCL 460.10a(1)); the cap is full, so no plans are offered", NONE],
    ] as const
  ).map(([state, enrolment, finding]) => ({ state, offerRules: rulesOf(state), enrolment, finding })),
);
