export type { RoleDeps } from './deps';
