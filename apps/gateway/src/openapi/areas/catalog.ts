import type { ApiArea } from '../area';

export const catalogArea: ApiArea = {
  schemas: {},
  paths: {},
};
