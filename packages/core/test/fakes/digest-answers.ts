/**
 * The digests a fake model API answers with, shared by the fakes of both model APIs: a
 * valid digest, or one that breaks the digest contract the way a model can (an invented
 * figure, a pairing the page does not state).
 */

/** How the fake model fills in its answer. */
export type AnswerMode = "ok" | "invented-figure" | "invented-only" | "mispaired" | "mispaired-only";

/** One page as a fake parsed it from the delimited document. */
export interface FakePage {
  toolCallId: string;
  text: string;
}

/** One page of the answer, in the wire shape (snake_case, every list present or absent). */
export interface AnswerPage {
  tool_call_id: string;
  title?: string | null;
  points?: string[];
  parties?: string[];
  dates?: string[];
  amounts?: string[];
  obligations?: string[];
  defined_terms?: string[];
  cross_references?: string[];
}

const MONEY = /\$\d{1,3}(?:,\d{3})+|\$\d+(?:\.\d+)? (?:Million|Billion)/g;
const RATE = /\d+(?:\.\d+)?%/g;

/**
 * A bullet pairing the page's last rate with its first amount, as a model that misreads a
 * flattened table would: on a page where they share no line, the page does not state it.
 */
function mispairing(text: string): string | undefined {
  const amount = text.match(MONEY)?.[0];
  const rate = text.match(RATE)?.at(-1);
  return amount && rate ? `Royalty: ${rate} of Net Sales up to ${amount}` : undefined;
}

/** The answer for `pages` in `mode`. */
export function answerPages(pages: readonly FakePage[], mode: AnswerMode): AnswerPage[] {
  return pages.map((page) => {
    const firstLine = page.text.split("\n")[0]?.slice(0, 120) ?? "";
    const money = page.text.match(MONEY)?.[0];
    const valid = { points: [firstLine], amounts: money ? [`Rent: ${money} per year`] : [] };
    const id = page.toolCallId;
    switch (mode) {
      case "invented-only":
        return { tool_call_id: id, amounts: ["Rent: $9,876,543 per year"] };
      case "invented-figure":
        return { tool_call_id: id, ...valid, obligations: ["Tenant pays a 7.77% fee"] };
      case "mispaired-only":
        return { tool_call_id: id, amounts: [mispairing(page.text) ?? ""] };
      case "mispaired":
        return { tool_call_id: id, ...valid, obligations: [mispairing(page.text) ?? ""] };
      default:
        return { tool_call_id: id, title: "Ground Lease", ...valid };
    }
  });
}
