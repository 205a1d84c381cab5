// The auth route group: every check is generated from contracts/requirements.yaml.
import { defineGroupSuite } from './define-suite';

defineGroupSuite('auth');
