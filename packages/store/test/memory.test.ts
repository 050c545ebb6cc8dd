import { createMemoryStores } from '../src';
import {
  describeHookStoreConformance, describeInteractionConformance, describeRunListConformance, describeRunStoreConformance,
} from './conformance';

const factory = async () => createMemoryStores();

describeRunStoreConformance('memory', factory);
describeRunListConformance('memory', factory);
describeHookStoreConformance('memory', factory);
describeInteractionConformance('memory', factory);
