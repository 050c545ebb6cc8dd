import { createMemoryStores } from '../src';
import {
  describeHookStoreConformance,
  describeInteractionConformance,
  describeRunListConformance,
  describeRunStoreConformance,
  describeStateConformance,
} from './conformance';

const factory = async () => createMemoryStores();

describeRunStoreConformance('memory', factory);
describeRunListConformance('memory', factory);
describeHookStoreConformance('memory', factory);
describeInteractionConformance('memory', factory);
describeStateConformance('memory', async (options) => createMemoryStores(options));
