/**
 * `@context-cleaner/assembler/figures`: the material figures of a text, verbatim
 * (`extractFigures`), and which figures an artifact is about to write do not occur in the
 * thread (`checkFigureProvenance`).
 */
export type { FigureProvenanceResult } from "./contract/figures";
export { checkFigureProvenance, extractFigures } from "./contract/figures";
