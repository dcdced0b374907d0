// The one wording of why a device request could not be met on a node (api/device-failures.ts),
// which `podplan explain` prints and the editor's explain and matrix views show.
import type { DeviceFailure, DeviceHolder, FalseSelector } from '../api/device-failures';

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function selectorText(s: FalseSelector): string {
  return `${s.owner === 'class' ? "the class's" : "the request's"} selector #${s.index} (${s.expression}) is false`;
}

function holderText(h: DeviceHolder): string {
  return h.pods.length > 0 ? `${h.claim} (${h.pods.join(', ')})` : h.claim;
}

/** What the request asks for: `request gpus of claim default/x (2 × large-gpu.example.com)`. */
function subject(f: DeviceFailure): string {
  if (f.code === 'allocatedElsewhere') return `claim ${f.claim}`;
  if (f.code === 'together') return `the claims of the pod (${f.claim}${f.request === '*' ? '' : `, request ${f.request}`})`;
  if (f.code === 'constraintUnmet')
    return `claim ${f.claim}, request${f.requests.length === 1 ? '' : 's'} ${f.requests.join(', ')} (${f.wanted} devices)`;
  const wanted = f.wanted === 'All' ? 'all' : `${f.wanted} ×`;
  return `claim ${f.claim}, request ${f.request} (${wanted} ${f.deviceClass})`;
}

/** Why the request could not be met, in words. */
export function deviceFailureCause(f: DeviceFailure): string {
  switch (f.code) {
    case 'noDevices':
      return 'the node has no devices';
    case 'noClassMatch':
      return `none of the node's ${plural(f.devices, 'device')} is of class ${f.deviceClass}${f.selector ? `: ${selectorText(f.selector)}` : ''}`;
    case 'selectorFalse':
      return `of the node's ${plural(f.devices, 'device')} of class ${f.deviceClass} none matches: ${selectorText(f.selector)}`;
    case 'unsuitable': {
      const why = [
        ...(f.tainted > 0 ? [`${f.tainted} tainted without a toleration`] : []),
        ...(f.capacity > 0 ? [`${f.capacity} without the capacity asked for`] : []),
      ];
      return `the node's ${plural(f.devices, 'matching device')}: ${why.join(', ')}`;
    }
    case 'notEnough': {
      const wanted = f.wanted === 'All' ? f.matching : f.wanted;
      if (f.matching < wanted) return `only ${plural(f.matching, 'matching device')} on the node`;
      const taken = f.matching - f.free;
      const by = [
        ...f.holders.map(holderText),
        ...(f.planned > 0 ? [`${plural(f.planned, 'device')} for pods placed earlier in this plan`] : []),
      ];
      return `${f.free} of the node's ${plural(f.matching, 'matching device')} free, ${taken} taken${by.length > 0 ? ` by ${by.join(', ')}` : ''}`;
    }
    case 'constraintUnmet': {
      const groups = f.groups.map((g) => `${g.value}: ${g.devices}`).join(', ');
      const spread = groups ? ` (free devices per value: ${groups})` : ` (no free device has ${f.attribute})`;
      return f.constraint === 'matchAttribute'
        ? `constraint #${f.index} matchAttribute ${f.attribute}: no value shared by ${f.wanted} free devices${spread}`
        : `constraint #${f.index} distinctAttribute ${f.attribute}: fewer than ${f.wanted} distinct values among the free devices${spread}`;
    }
    case 'together':
      return 'each request can be met alone, but not all of them at once (they compete for the same devices)';
    case 'allocatedElsewhere': {
      const where = f.nodes.length > 0 ? `on ${f.nodes.join(', ')}` : 'on nodes its node selector names';
      const whose = f.pods.length > 0 ? `, reserved for ${f.pods.join(', ')}` : '';
      return `allocated already ${where}${whose}: the pod can only go where its devices are`;
    }
  }
}

/** One line per failure: the request, then why. */
export function deviceFailureText(f: DeviceFailure): string {
  return `${subject(f)}: ${deviceFailureCause(f)}`;
}
