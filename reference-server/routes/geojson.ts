// GeoJSON answers: JSON with application/json (the profile allows application/json or application/geo+json).

import type { FastifyReply } from 'fastify';
import type { Switches } from '../context';

export function sendGeoJson(reply: FastifyReply, body: unknown, { faults, variants }: Switches): FastifyReply {
  // fault geojson-content-type-text-plain: the serializer's string sent without a type.
  if (faults.has('geojson-content-type-text-plain')) return reply.type('text/plain; charset=utf-8').send(JSON.stringify(body));
  // variant geojson-geo-json: the GeoJSON media type of RFC 7946 (the charset as Fastify writes it for any JSON type).
  if (variants.has('geojson-geo-json')) return reply.type('application/geo+json; charset=utf-8').send(JSON.stringify(body));
  return reply.type('application/json; charset=utf-8').send(body);
}
