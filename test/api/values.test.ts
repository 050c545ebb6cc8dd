import { ERROR_KINDS } from '@hookyard/core';
import { ERROR_KIND_VALUES } from '../../packages/api/src/values';
import { ERROR_KIND_NAMES } from '../../packages/api/src/routes/hooks-shared';
import { ERROR_KIND_VALUES as RUNS_ERROR_KINDS } from '../../packages/api/src/routes/runs-shared';

// The API's plain enumerations (what the console bundles) say what core says, and the schemas use that one list.
describe('@hookyard/api values', () => {
  it("the error kinds are core's, in its order, and the schemas' lists are the same array", () => {
    expect([...ERROR_KIND_VALUES]).toEqual([...ERROR_KINDS]);
    expect(ERROR_KIND_NAMES).toBe(ERROR_KIND_VALUES);
    expect(RUNS_ERROR_KINDS).toBe(ERROR_KIND_VALUES);
  });
});
