import type { ApiArea } from '../area';

export const authArea: ApiArea = {
  schemas: {},
  paths: {},
};
