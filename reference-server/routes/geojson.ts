// GeoJSON answers: JSON with application/json (the profile allows application/json or application/geo+json).

import type { FastifyReply } from 'fastify';
import type { Faults } from '../faults';

export function sendGeoJson(reply: FastifyReply, body: unknown, faults: Faults): FastifyReply {
  // fault geojson-content-type-text-plain: the serializer's string sent without a type.
  if (faults.has('geojson-content-type-text-plain')) return reply.type('text/plain; charset=utf-8').send(JSON.stringify(body));
  return reply.type('application/json; charset=utf-8').send(body);
}
