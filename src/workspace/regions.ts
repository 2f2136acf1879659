/** Regions of contract part 2; stored with a key, they place nothing yet. */
export const PERSISTENCE_DB_REGIONS = [
  'us-central1',
  'us-east1',
  'us-east4',
  'us-west1',
  'europe-west1',
  'europe-west2',
  'europe-west3',
  'asia-south1',
  'asia-southeast1',
  'asia-northeast1',
  'australia-southeast1',
  'nam5',
  'eur3',
] as const;

export const REALTIME_DB_REGIONS = ['us-central1', 'europe-west1', 'asia-southeast1'] as const;
