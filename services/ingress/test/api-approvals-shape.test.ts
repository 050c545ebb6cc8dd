/**
 * @hookyard/api depends on TypeBox only (the console takes its types), so the
 * enumerations of the approvals, tools and settings shapes repeat core's and
 * the tools package's constants: held equal here.
 */
import {
  APPROVAL_ACTION_VALUES,
  APPROVAL_APPROVER_VALUES,
  APPROVAL_TIMEOUT_VALUES,
  CATALOGUE_FORMAT_VALUES,
  INTERACTION_ID_PATTERN_SOURCE,
  INTERACTION_KIND_VALUES,
  INTERACTION_STATUS_VALUES,
  REMOTE_PROTOCOL_VALUES,
  RESOLUTION_VIA_VALUES,
} from '@hookyard/api';
import {
  APPROVAL_ACTIONS,
  APPROVAL_APPROVERS,
  APPROVAL_TIMEOUT_ACTIONS,
  INTERACTION_ID_PATTERN,
  INTERACTION_KINDS,
  INTERACTION_STATUSES,
  REMOTE_PROTOCOLS,
  RESOLUTION_VIAS,
} from '@hookyard/core';
import { CATALOGUE_FORMATS } from '@hookyard/tools';

describe('the declared approval, tool and settings shapes', () => {
  it("repeat core's enumerations exactly", () => {
    expect({
      kinds: INTERACTION_KIND_VALUES,
      statuses: INTERACTION_STATUS_VALUES,
      vias: RESOLUTION_VIA_VALUES,
      actions: APPROVAL_ACTION_VALUES,
      timeouts: APPROVAL_TIMEOUT_VALUES,
      approvers: APPROVAL_APPROVER_VALUES,
      formats: CATALOGUE_FORMAT_VALUES,
      protocols: REMOTE_PROTOCOL_VALUES,
      id: INTERACTION_ID_PATTERN_SOURCE,
    }).toEqual({
      kinds: INTERACTION_KINDS,
      statuses: INTERACTION_STATUSES,
      vias: RESOLUTION_VIAS,
      actions: APPROVAL_ACTIONS,
      timeouts: APPROVAL_TIMEOUT_ACTIONS,
      approvers: APPROVAL_APPROVERS,
      formats: CATALOGUE_FORMATS,
      // A tool record also takes the legacy protocol name `langserve`.
      protocols: [...REMOTE_PROTOCOLS, 'langserve'],
      id: INTERACTION_ID_PATTERN.source,
    });
  });
});
