import { createMemoryStores } from '../src';
import { describeHookStoreConformance, describeRunListConformance, describeRunStoreConformance } from './conformance';

const factory = async () => createMemoryStores();

describeRunStoreConformance('memory', factory);
describeRunListConformance('memory', factory);
describeHookStoreConformance('memory', factory);
