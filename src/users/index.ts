export { UserDisablingService } from './user-disabling.service.js';
export { type UserResponse } from './user-response.js';
export { UsersModule } from './users.module.js';
