import type { ApiArea } from '../area';

export const checkoutArea: ApiArea = {
  schemas: {},
  paths: {},
};
