// Cost entries for the one Kubernetes library the selector environment does not offer yet: the
// format library (k8s.io/apiserver v0.37.2 pkg/cel/library format.go, its entries in cost.go lines
// 211-237). Kept here, keyed by function name, to move beside the library when it lands; until then
// a call of format.named or validate is refused as undeclared before its cost matters.
import { COST, est, fixed, member, overload, T, type CelCostLibrary, type CelT } from './cel-cost';

const FORMAT_T = T.struct('kubernetes.NamedFormat');
const OPTIONAL = (t: CelT): CelT => T.opaque('optional_type', [t]);
/** apiservercel.MaxNameFormatRegexSize. */
const MAX_NAME_FORMAT_REGEX_SIZE = 128;

export const pendingCost: CelCostLibrary = {
  decls: [
    member('validate', 'format-validate', [FORMAT_T, T.string], OPTIONAL(T.list(T.string))),
    overload('format.named', 'format-named', [T.string], OPTIONAL(FORMAT_T)),
  ],
  byFunction: {
    validate: (ctx, _fn, _id, _target, args) =>
      args.length >= 1
        ? {
            cost: est.factor(
              est.factor(ctx.size(args[0]!), COST.stringTraversalFactor),
              MAX_NAME_FORMAT_REGEX_SIZE * COST.regexStringLengthFactor,
            ),
          }
        : undefined,
    'format.named': () => ({ cost: fixed(1n) }),
  },
};
