import type { ApiArea } from '../area';

export const loyaltyArea: ApiArea = {
  schemas: {},
  paths: {},
};
