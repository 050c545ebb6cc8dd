type Schema = Record<string, unknown>;

/** components.schemas of the door's answers (the management API's come from @hookyard/api). */
export const SCHEMAS: Record<string, Schema> = {
  DoorAccepted: {
    type: 'object',
    required: ['status'],
    properties: {
      status: { type: 'string', enum: ['accepted', 'duplicate'] },
      runs: { type: 'integer', minimum: 0, description: 'Runs kept (one per hook on the topic); absent on duplicate' },
      run_ids: { type: 'array', items: { type: 'string' }, description: 'The ids of the runs kept (GET /api/hook-runs/{id}); absent on duplicate' },
      event_id: {
        type: 'string',
        nullable: true,
        description: 'The id every run id of this event starts with; null when nothing was kept; absent on duplicate',
      },
      unrouted: {
        type: 'boolean',
        enum: [true],
        description: 'Present when no hook is registered on the topic (runs: 0): the event is kept under GET /api/unrouted',
      },
      message: { type: 'string', description: 'With unrouted: says no hook is registered on the topic and where the event is kept' },
    },
  },
  DoorRejected: {
    type: 'object',
    required: ['status', 'error'],
    properties: { status: { type: 'string', enum: ['rejected'] }, error: { type: 'string' } },
  },
  DoorError: {
    type: 'object',
    required: ['error'],
    properties: { error: { type: 'string' } },
  },
};
